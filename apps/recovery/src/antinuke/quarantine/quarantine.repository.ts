import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { QuarantineRecord } from '../workflows/antinuke-contract';
import { mergeQuarantines } from './quarantine-plan';

/** What giving back did, item by item. */
export interface ReleaseResult {
  roles_given_back: { id: string; name: string }[];
  permissions_given_back: { id: string; name: string; permissions: string }[];
  /** What could not be given back, and why (the role was deleted, the member left). */
  not_given_back: { id: string; name: string; reason: 'role_deleted' | 'member_not_in_guild' }[];
}

export interface StoredQuarantine extends QuarantineRecord {
  incident_id: string;
  guild_id: string;
  taken_at: string;
  released_at: string | null;
  released_by_user: string | null;
  release_result: ReleaseResult | null;
}

type Row = Omit<StoredQuarantine, 'taken_at' | 'released_at'> & { taken_at: Date; released_at: Date | null };

const COLUMNS = `incident_id, guild_id, actor_platform_user_id, roles_removed, role_permissions_stripped,
  member_removed, taken_at, released_at, released_by_user, release_result`;

/**
 * `recovery.antinuke_quarantines`: exactly what each incident's quarantine took. The plan is
 * written before anything is taken, and what was written first stays: a retried quarantine, which
 * finds the roles already gone, records nothing twice and loses nothing (`store`).
 */
@Injectable()
export class QuarantineRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores what a quarantine of the actor is about to take, before any of it is taken, and answers
   * the record to act on. Two quarantines of one actor may run at once: the one live sync starts
   * the moment the actor crosses the threshold (`adopt` false, under an id of its own), and the
   * workflow's (`adopt` true, under the incident's id). They are serialised per guild and actor (a
   * transaction-scoped advisory lock), and what each plans is merged (mergeQuarantines) into the
   * actor's open record: one not yet given back and not yet an incident's. The workflow's adopts
   * every open record of the actor under its incident's id, so what live sync took is the
   * incident's, given back with it; live sync's adds to the open record it finds (the workflow's,
   * if that came first), or stores a new one. Nothing is taken twice, and nothing taken is lost.
   * A record already given back is answered as it is. `onlyIfOpen`: nothing is stored (null) when
   * no record of the actor is open (the workflow's, finding the actor gone, adopts only).
   */
  async store(
    guildId: string,
    plan: QuarantineRecord,
    target: { incidentId: string; adopt: boolean; onlyIfOpen?: boolean },
  ): Promise<StoredQuarantine | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('antinuke-quarantine'), hashtext($1))`, [
        `${guildId}:${plan.actor_platform_user_id}`,
      ]);
      const rows = await manager.query<Row[]>(
        `SELECT ${COLUMNS} FROM recovery.antinuke_quarantines q
          WHERE q.guild_id = $1
            AND (q.incident_id = $2
                 OR (q.actor_platform_user_id = $3 AND q.released_at IS NULL
                     AND NOT EXISTS (SELECT 1 FROM recovery.antinuke_incidents i WHERE i.id = q.incident_id)))
          ORDER BY q.taken_at, q.incident_id`,
        [guildId, target.incidentId, plan.actor_platform_user_id],
      );
      const own = rows.find((row) => row.incident_id === target.incidentId);
      if (own?.released_at) return toStored(own);
      const open = rows.filter((row) => !row.released_at);
      if (open.length === 0 && target.onlyIfOpen) return null;
      let incidentId = target.incidentId;
      let merging = open;
      if (!target.adopt && !own && open.length > 0) {
        // Live sync adds to the newest open record, whoever stored it, and leaves the rest to the workflow.
        incidentId = open[open.length - 1].incident_id;
        merging = [open[open.length - 1]];
      }
      const others = merging.map((row) => row.incident_id).filter((id) => id !== incidentId);
      if (others.length > 0) {
        await manager.query(
          `DELETE FROM recovery.antinuke_quarantines WHERE guild_id = $1 AND incident_id = ANY($2::uuid[])`,
          [guildId, others],
        );
      }
      const record = mergeQuarantines([...merging, plan]);
      const takenAt = merging.length > 0 ? merging[0].taken_at : null;
      const [stored] = await manager.query<Row[]>(
        `INSERT INTO recovery.antinuke_quarantines
           (incident_id, guild_id, actor_platform_user_id, roles_removed, role_permissions_stripped,
            member_removed, taken_at)
         VALUES ($1, $2, $3, $4, $5, $6, COALESCE($7::timestamptz, now()))
         ON CONFLICT (incident_id) DO UPDATE SET
           roles_removed = EXCLUDED.roles_removed,
           role_permissions_stripped = EXCLUDED.role_permissions_stripped,
           member_removed = EXCLUDED.member_removed,
           taken_at = EXCLUDED.taken_at
         RETURNING ${COLUMNS}`,
        [
          incidentId,
          guildId,
          record.actor_platform_user_id,
          JSON.stringify(record.roles_removed),
          JSON.stringify(record.role_permissions_stripped),
          record.member_removed,
          takenAt,
        ],
      );
      return toStored(stored);
    });
  }

  async get(guildId: string, incidentId: string): Promise<StoredQuarantine | null> {
    const [row] = await this.dataSource.query<Row[]>(
      `SELECT ${COLUMNS} FROM recovery.antinuke_quarantines WHERE guild_id = $1 AND incident_id = $2`,
      [guildId, incidentId],
    );
    return row ? toStored(row) : null;
  }

  async ofIncidents(incidentIds: string[]): Promise<Map<string, StoredQuarantine>> {
    if (incidentIds.length === 0) return new Map();
    const rows = await this.dataSource.query<Row[]>(
      `SELECT ${COLUMNS} FROM recovery.antinuke_quarantines WHERE incident_id = ANY($1::uuid[])`,
      [incidentIds],
    );
    return new Map(rows.map((row) => [row.incident_id, toStored(row)]));
  }

  /** Claims the release; false when it was released already (or is being released). */
  async claimRelease(incidentId: string, userId: string): Promise<boolean> {
    const claimed = await this.dataSource.query<{ incident_id: string }[]>(
      `UPDATE recovery.antinuke_quarantines SET released_at = now(), released_by_user = $2
        WHERE incident_id = $1 AND released_at IS NULL
        RETURNING incident_id`,
      [incidentId, userId],
    );
    return claimed.length > 0;
  }

  /** The platform could not be reached: the release can be asked for again. */
  async unclaimRelease(incidentId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.antinuke_quarantines SET released_at = NULL, released_by_user = NULL
        WHERE incident_id = $1 AND release_result IS NULL`,
      [incidentId],
    );
  }

  async recordRelease(incidentId: string, result: ReleaseResult): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.antinuke_quarantines SET release_result = $2 WHERE incident_id = $1`,
      [incidentId, JSON.stringify(result)],
    );
  }
}

function toStored(row: Row): StoredQuarantine {
  return {
    ...row,
    taken_at: row.taken_at.toISOString(),
    released_at: row.released_at ? row.released_at.toISOString() : null,
  };
}
