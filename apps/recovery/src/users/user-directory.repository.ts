import { Injectable } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { TtlCache } from '@lib/runtime';
import { DataSource } from 'typeorm';

type UserIdentity = Extract<InternalIdentity, { kind: 'user' }>;

/** How long a process trusts that the pair it last recorded for a platform user is still stored. */
const RECORDED_TTL_MS = 60 * 60_000;

/**
 * The service users recovery has seen, by platform user (`recovery.user_directory`): every user
 * request carries both ids in the gateway's token, and this remembers the pair, so a platform-side
 * action (the slash command) is attributed to the same user as a dashboard one, and the dashboard
 * can name the users an audit entry names by our id (`GET /api/v1/guilds/{id}/member-names`). The
 * other services report the user of each MANAGE_GUILD check they ask recovery for, so whoever acts
 * in a guild anywhere (a payer on billing's routes) is here. A user who has never used the
 * dashboard has no service user yet, and stays unknown.
 */
@Injectable()
export class UserDirectory {
  /** Pairs this process has stored lately: a user's further requests write nothing. */
  private readonly recorded = new TtlCache<string>(RECORDED_TTL_MS);
  /** Pairs other services reported that this process has stored lately. */
  private readonly reported = new TtlCache<boolean>(RECORDED_TTL_MS);

  constructor(private readonly dataSource: DataSource) {}

  async remember(identity: UserIdentity): Promise<void> {
    const { platform_user_id: platformUserId, user_id: userId } = identity;
    await this.recorded.get(
      platformUserId,
      async () => {
        await this.dataSource.query(
          `INSERT INTO recovery.user_directory (platform_user_id, user_id) VALUES ($1, $2)
           ON CONFLICT (platform_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, seen_at = now()
             WHERE user_directory.user_id <> EXCLUDED.user_id`,
          [platformUserId, userId],
        );
        return userId;
      },
      (stored) => stored === userId,
    );
  }

  /**
   * A pair another service reports for its own user request (the `user_id` of MANAGE_GUILD checks,
   * docs/security.md): a payer who acts only through billing is known here too. Such a report never
   * replaces a pair already stored: one recorded from a user request recovery served itself, signed
   * by the gateway, is the better word.
   */
  async rememberReported(platformUserId: string, userId: string): Promise<void> {
    await this.reported.get(`${platformUserId}|${userId}`, async () => {
      await this.dataSource.query(
        `INSERT INTO recovery.user_directory (platform_user_id, user_id) VALUES ($1, $2)
         ON CONFLICT (platform_user_id) DO NOTHING`,
        [platformUserId, userId],
      );
      return true;
    });
  }

  /** The platform user of each of our users that has been seen (user id -> platform user id). */
  async platformUserIdsOf(userIds: readonly string[]): Promise<Map<string, string>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.dataSource.query<{ user_id: string; platform_user_id: string }[]>(
      `SELECT user_id, platform_user_id FROM recovery.user_directory
        WHERE user_id = ANY($1::uuid[]) ORDER BY seen_at`,
      [userIds],
    );
    // The latest seen wins, should one user have been recorded under two platform users.
    return new Map(rows.map((row) => [row.user_id, row.platform_user_id]));
  }

  /** The service user of a platform user, or null when none has been seen. */
  async userIdOf(platformUserId: string): Promise<string | null> {
    const [row] = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT user_id FROM recovery.user_directory WHERE platform_user_id = $1`,
      [platformUserId],
    );
    return row?.user_id ?? null;
  }
}
