import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What undoing a raid needs of an incident. */
export interface IncidentToUndo {
  /** `bot_removed`: the bot was kicked or banned first; its audit log is read back on its return. */
  action: string;
  /** Null for an incident with no known raider (the bot removed, or its audit log taken). */
  actor_platform_user_id: string | null;
  first_action_at: Date;
  undo_snapshot_id: string | null;
}

/** The incident's rows and the guild's snapshots an undo is composed from, and the undo it records. */
@Injectable()
export class RaidUndoRepository {
  constructor(private readonly dataSource: DataSource) {}

  async incident(guildId: string, incidentId: string): Promise<IncidentToUndo | undefined> {
    const [row] = await this.dataSource.query<IncidentToUndo[]>(
      `SELECT action, actor_platform_user_id, first_action_at, undo_snapshot_id
         FROM recovery.antinuke_incidents WHERE id = $1 AND guild_id = $2`,
      [incidentId, guildId],
    );
    return row;
  }

  /** Every member the incident's actor banned, and every role they took from a member (not only the first 1,000). */
  async targets(
    incidentId: string,
  ): Promise<{ banned: string[]; rolesStripped: { user_id: string; role_id: string }[] }> {
    const rows = await this.dataSource.query<
      { kind: string; target_user_id: string; role_id: string | null }[]
    >(
      `SELECT DISTINCT kind, target_user_id, role_id FROM recovery.antinuke_incident_targets
        WHERE incident_id = $1 AND kind IN ('member_ban', 'member_role_remove')`,
      [incidentId],
    );
    return {
      banned: rows.filter((row) => row.kind === 'member_ban').map((row) => row.target_user_id),
      rolesStripped: rows
        .filter((row) => row.kind === 'member_role_remove')
        .map((row) => ({ user_id: row.target_user_id, role_id: row.role_id! })),
    };
  }

  /** The payload of the guild's newest snapshot taken before `before`, of any trigger. */
  async payloadBefore(guildId: string, before: Date): Promise<unknown> {
    const [row] = await this.dataSource.query<{ payload: unknown }[]>(
      `SELECT payload FROM recovery.snapshots
        WHERE guild_id = $1 AND created_at < $2 ORDER BY created_at DESC LIMIT 1`,
      [guildId, before],
    );
    return row?.payload ?? null;
  }

  async payload(snapshotId: string): Promise<unknown> {
    const [row] = await this.dataSource.query<{ payload: unknown }[]>(
      `SELECT payload FROM recovery.snapshots WHERE id = $1`,
      [snapshotId],
    );
    return row?.payload ?? null;
  }

  /**
   * The guild's `bot_removed` incidents that name no raider yet, within the 45 days the platform
   * keeps its audit log: those a read-back on the bot's return may name.
   */
  async unnamedRemovals(guildId: string): Promise<{ id: string; first_action_at: Date }[]> {
    return this.dataSource.query(
      `SELECT id, first_action_at FROM recovery.antinuke_incidents
        WHERE guild_id = $1 AND action = 'bot_removed' AND actor_platform_user_id IS NULL
          AND opened_at > now() - interval '45 days'
        ORDER BY opened_at`,
      [guildId],
    );
  }

  /**
   * Names the raider of an incident that named none, from the audit-log entry that removed the
   * bot: the raid starts at that entry. An incident that names one already is left as it is, so
   * a second read-back (or another replica's) changes nothing. Returns whether it was named now.
   */
  async nameRaider(
    incidentId: string,
    raider: { actor: string; entryId: string; at: Date },
  ): Promise<boolean> {
    const [, named] = await this.dataSource.query<[unknown, number]>(
      `UPDATE recovery.antinuke_incidents
          SET actor_platform_user_id = $2, first_action_at = $3,
              audit_log_entry_ids = CASE WHEN $4 = ANY (audit_log_entry_ids) THEN audit_log_entry_ids
                                         ELSE array_append(audit_log_entry_ids, $4) END
        WHERE id = $1 AND actor_platform_user_id IS NULL`,
      [incidentId, raider.actor, raider.at, raider.entryId],
    );
    return named > 0;
  }

  async recordUndo(incidentId: string, snapshotId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.antinuke_incidents SET undo_snapshot_id = $2 WHERE id = $1`,
      [incidentId, snapshotId],
    );
  }
}
