import { Injectable } from '@nestjs/common';
import { type KeysetPage, keysetPage, keysetStart, keysetTimeSql, withIsoDates } from '@lib/database';
import { NotFoundError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { RecoveryEvents } from '../recovery-events';
import type { DestructiveActionKind } from './destructive-action';
import type { OpenIncidentInput } from './workflows/antinuke-contract';

export interface IncidentView {
  id: string;
  guild_id: string;
  actor_platform_user_id: string;
  action: DestructiveActionKind;
  count: number;
  audit_log_entry_ids: string[];
  first_action_at: string;
  last_action_at: string;
  snapshot_id: string | null;
  snapshot_error: string | null;
  auto_action_taken: boolean;
  auto_action_error: string | null;
  opened_at: string;
}

type IncidentRow = Omit<IncidentView, 'first_action_at' | 'last_action_at' | 'opened_at'> & {
  first_action_at: Date;
  last_action_at: Date;
  opened_at: Date;
};

const COLUMNS = `id, guild_id, actor_platform_user_id, action, count, audit_log_entry_ids, first_action_at,
  last_action_at, snapshot_id, snapshot_error, auto_action_taken, auto_action_error, opened_at`;

/** `recovery.antinuke_incidents`: what AntiNuke saw and did, newest first for the dashboard. */
@Injectable()
export class AntiNukeIncidentsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: RecoveryEvents,
  ) {}

  /**
   * The incident and AntiNukeIncidentOpened in one transaction. Idempotent by incident id (minted
   * by the workflow): a retried activity writes neither twice. True when this call inserted it.
   */
  async open(input: OpenIncidentInput): Promise<boolean> {
    const { burst } = input;
    return this.dataSource.transaction(async (manager) => {
      const [guild] = await manager.query<{ name: string; owner_platform_user_id: string }[]>(
        `SELECT name, owner_platform_user_id FROM recovery.guilds WHERE id = $1`,
        [input.guildId],
      );
      if (!guild) throw new NotFoundError('ErrGuildNotFound', 'Guild');
      const inserted = await manager.query<{ id: string }[]>(
        `INSERT INTO recovery.antinuke_incidents
           (id, guild_id, actor_platform_user_id, action, count, audit_log_entry_ids, first_action_at,
            last_action_at, snapshot_id, snapshot_error, auto_action_taken, auto_action_error, opened_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (id) DO NOTHING
         RETURNING id`,
        [
          input.incidentId,
          input.guildId,
          burst.actor_platform_user_id,
          burst.kind,
          burst.count,
          burst.audit_log_entry_ids,
          new Date(burst.first_at),
          new Date(burst.last_at),
          input.snapshotId,
          input.snapshotError,
          input.autoActionTaken,
          input.autoActionError,
          input.openedAt,
        ],
      );
      if (inserted.length === 0) return false;
      await this.events.antiNukeIncidentOpened(manager, input, guild);
      return true;
    });
  }

  async list(guildId: string, query: { limit: number; cursor?: string }): Promise<KeysetPage<IncidentView>> {
    const after = keysetStart(query.cursor);
    const rows = await this.dataSource.query<(IncidentRow & { cursor_at: string })[]>(
      `SELECT ${COLUMNS}, ${keysetTimeSql('opened_at')} AS cursor_at FROM recovery.antinuke_incidents
        WHERE guild_id = $1
          AND ($2::timestamptz IS NULL OR (opened_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY opened_at DESC, id DESC
        LIMIT $4`,
      [guildId, after.at, after.id, query.limit + 1],
    );
    return keysetPage(rows, query.limit, toView);
  }
}

function toView({ cursor_at: _cursorAt, ...row }: IncidentRow & { cursor_at: string }): IncidentView {
  return withIsoDates(row);
}
