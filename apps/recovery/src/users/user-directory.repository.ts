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
 * action (the slash command) is attributed to the same user as a dashboard one. A user who has
 * never used the dashboard has no service user yet, and stays unknown.
 */
@Injectable()
export class UserDirectory {
  /** Pairs this process has stored lately: a user's further requests write nothing. */
  private readonly recorded = new TtlCache<string>(RECORDED_TTL_MS);

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

  /** The service user of a platform user, or null when none has been seen. */
  async userIdOf(platformUserId: string): Promise<string | null> {
    const [row] = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT user_id FROM recovery.user_directory WHERE platform_user_id = $1`,
      [platformUserId],
    );
    return row?.user_id ?? null;
  }
}
