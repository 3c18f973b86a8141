import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { QuarantineRecord } from '../workflows/antinuke-contract';

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
 * written before anything is taken, and the first one written stays: a retried quarantine, which
 * finds the roles already gone, records nothing twice and loses nothing.
 */
@Injectable()
export class QuarantineRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores the plan unless one is stored for the incident; answers the one stored. */
  async plan(guildId: string, incidentId: string, record: QuarantineRecord): Promise<StoredQuarantine> {
    await this.dataSource.query(
      `INSERT INTO recovery.antinuke_quarantines
         (incident_id, guild_id, actor_platform_user_id, roles_removed, role_permissions_stripped, member_removed)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (incident_id) DO NOTHING`,
      [
        incidentId,
        guildId,
        record.actor_platform_user_id,
        JSON.stringify(record.roles_removed),
        JSON.stringify(record.role_permissions_stripped),
        record.member_removed,
      ],
    );
    return (await this.get(guildId, incidentId))!;
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
