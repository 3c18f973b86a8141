import { Injectable } from '@nestjs/common';
import { type KeysetPage, keysetPage, keysetStart, keysetTimeSql, withIsoDates } from '@lib/database';
import { DataSource, type EntityManager } from 'typeorm';
import { RecoveryEvents } from '../recovery-events';
import type { IncidentAction } from './destructive-action';
import { QuarantineRepository, type StoredQuarantine } from './quarantine/quarantine.repository';
import type {
  IncidentTarget,
  IncidentToOpen,
  IncidentTargetKind,
  RecordIncidentTargetsInput,
} from './workflows/antinuke-contract';
import { GuildErrors } from '../guilds/guilds.errors';

/** Each list of what a raider did to members holds at most this many; its total says how many there were. */
export const MAX_TARGETS_LISTED = 1_000;

/** A role the raider took from a member. */
export interface StrippedRoleView {
  user_id: string;
  role_id: string;
  /** The role's name when it was taken. */
  role_name: string | null;
}

/** What the raider did to members while the incident was open, each member or role once. */
export interface IncidentTargetsView {
  /** Platform user ids of the members the actor banned, oldest first, at most 1,000. */
  members_banned: string[];
  /** How many in all (`members_banned` lists the first 1,000). */
  members_banned_total: number;
  /** Platform user ids of the members the actor kicked, oldest first, at most 1,000. */
  members_kicked: string[];
  /** How many in all (`members_kicked` lists the first 1,000). */
  members_kicked_total: number;
  /** Roles the actor took from members, oldest first, at most 1,000. */
  roles_stripped: StrippedRoleView[];
  /** How many in all (`roles_stripped` lists the first 1,000). */
  roles_stripped_total: number;
}

export interface IncidentView extends IncidentTargetsView {
  id: string;
  guild_id: string;
  /**
   * Who did it; null when the bot was removed from the guild and could no longer read its audit
   * log to learn who removed it.
   */
  actor_platform_user_id: string | null;
  /** The kind that weighed most in the burst, `mixed`, or the bot's removal or loss of the audit log. */
  action: IncidentAction;
  count: number;
  audit_log_entry_ids: string[];
  first_action_at: string;
  last_action_at: string;
  /** The guild when AntiNuke noticed the raid (after the damage that opened the incident). */
  snapshot_id: string | null;
  snapshot_error: string | null;
  /** The guild as it was before the raid, once "Undo this raid" composed it (the newest one). */
  undo_snapshot_id: string | null;
  auto_action_taken: boolean;
  auto_action_error: string | null;
  opened_at: string;
  /** What the quarantine took and whether it was given back; null when nothing was taken. */
  quarantine: StoredQuarantine | null;
}

type IncidentRow = Omit<
  IncidentView,
  keyof IncidentTargetsView | 'first_action_at' | 'last_action_at' | 'opened_at' | 'quarantine'
> & {
  first_action_at: Date;
  last_action_at: Date;
  opened_at: Date;
};

const COLUMNS = `id, guild_id, actor_platform_user_id, action, count, audit_log_entry_ids, first_action_at,
  last_action_at, snapshot_id, snapshot_error, undo_snapshot_id, auto_action_taken, auto_action_error, opened_at`;

/** `recovery.antinuke_incidents`: what AntiNuke saw and did, newest first for the dashboard. */
@Injectable()
export class AntiNukeIncidentsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: RecoveryEvents,
    private readonly quarantines: QuarantineRepository,
  ) {}

  /**
   * The incident and AntiNukeIncidentOpened in one transaction. Idempotent by incident id (minted
   * by the workflow): a retried activity writes neither twice. True when this call inserted it.
   */
  async open(input: IncidentToOpen): Promise<boolean> {
    return this.dataSource.transaction((manager) => this.openIn(manager, input));
  }

  /** open() in the caller's transaction. */
  async openIn(manager: EntityManager, input: IncidentToOpen): Promise<boolean> {
    const { burst } = input;
    {
      const [guild] = await manager.query<{ name: string; owner_platform_user_id: string }[]>(
        `SELECT name, owner_platform_user_id FROM recovery.guilds WHERE id = $1`,
        [input.guildId],
      );
      if (!guild) throw GuildErrors.notFound();
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
      await this.insertTargets(manager, input.incidentId, input.targets ?? []);
      await this.events.antiNukeIncidentOpened(manager, input, guild);
      return true;
    }
  }

  /**
   * Adds what the actor went on to do to members. An entry already recorded is passed over; an
   * incident that was never recorded gets nothing (its targets have nowhere to go).
   */
  async recordTargets(input: RecordIncidentTargetsInput): Promise<number> {
    return this.insertTargets(this.dataSource.manager, input.incidentId, input.targets, input.guildId);
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
    const page = keysetPage(rows, query.limit, toView);
    const ids = page.items.map((incident) => incident.id);
    const [targets, quarantines] = await Promise.all([
      this.targetsOf(ids),
      this.quarantines.ofIncidents(ids),
    ]);
    return {
      ...page,
      items: page.items.map((incident) => ({
        ...incident,
        ...(targets.get(incident.id) ?? noTargets()),
        quarantine: quarantines.get(incident.id) ?? null,
      })),
    };
  }

  /** Rows inserted; the incident must belong to `guildId` when one is given. */
  private async insertTargets(
    manager: EntityManager,
    incidentId: string,
    targets: IncidentTarget[],
    guildId?: string,
  ): Promise<number> {
    if (targets.length === 0) return 0;
    const inserted = await manager.query<{ incident_id: string }[]>(
      `INSERT INTO recovery.antinuke_incident_targets
         (incident_id, kind, target_user_id, role_id, role_name, audit_log_entry_id, at)
       SELECT i.id, t.kind, t.target_user_id, t.role_id, t.role_name, t.audit_log_entry_id, t.at
         FROM recovery.antinuke_incidents i,
              unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
                AS t (kind, target_user_id, role_id, role_name, audit_log_entry_id, at)
        WHERE i.id = $1 AND ($2::uuid IS NULL OR i.guild_id = $2)
       ON CONFLICT ON CONSTRAINT antinuke_incident_targets_entry_key DO NOTHING
       RETURNING incident_id`,
      [
        incidentId,
        guildId ?? null,
        targets.map((target) => target.kind),
        targets.map((target) => target.target_user_id),
        targets.map((target) => target.role_id),
        targets.map((target) => target.role_name),
        targets.map((target) => target.audit_log_entry_id),
        targets.map((target) => new Date(target.at)),
      ],
    );
    return inserted.length;
  }

  /**
   * Per incident, each member banned or kicked and each (member, role) stripped once, oldest
   * first, at most MAX_TARGETS_LISTED of each kind, with how many there are in all.
   */
  private async targetsOf(incidentIds: string[]): Promise<Map<string, IncidentTargetsView>> {
    const views = new Map<string, IncidentTargetsView>();
    if (incidentIds.length === 0) return views;
    const rows = await this.dataSource.query<
      {
        incident_id: string;
        kind: IncidentTargetKind;
        target_user_id: string;
        role_id: string | null;
        role_name: string | null;
        total: number;
      }[]
    >(
      `WITH distinct_targets AS (
         SELECT incident_id, kind, target_user_id, role_id, min(role_name) AS role_name, min(at) AS at
           FROM recovery.antinuke_incident_targets
          WHERE incident_id = ANY($1::uuid[])
          GROUP BY incident_id, kind, target_user_id, role_id
       ), ranked AS (
         SELECT *,
                row_number() OVER (PARTITION BY incident_id, kind ORDER BY at, target_user_id, role_id) AS n,
                count(*) OVER (PARTITION BY incident_id, kind)::int AS total
           FROM distinct_targets
       )
       SELECT incident_id, kind, target_user_id, role_id, role_name, total
         FROM ranked WHERE n <= $2
        ORDER BY incident_id, kind, n`,
      [incidentIds, MAX_TARGETS_LISTED],
    );
    for (const row of rows) {
      let view = views.get(row.incident_id);
      if (!view) views.set(row.incident_id, (view = noTargets()));
      if (row.kind === 'member_ban') {
        view.members_banned.push(row.target_user_id);
        view.members_banned_total = row.total;
      } else if (row.kind === 'member_kick') {
        view.members_kicked.push(row.target_user_id);
        view.members_kicked_total = row.total;
      } else {
        view.roles_stripped.push({
          user_id: row.target_user_id,
          role_id: row.role_id!,
          role_name: row.role_name,
        });
        view.roles_stripped_total = row.total;
      }
    }
    return views;
  }
}

function noTargets(): IncidentTargetsView {
  return {
    members_banned: [],
    members_banned_total: 0,
    members_kicked: [],
    members_kicked_total: 0,
    roles_stripped: [],
    roles_stripped_total: 0,
  };
}

function toView({
  cursor_at: _cursorAt,
  ...row
}: IncidentRow & { cursor_at: string }): Omit<IncidentView, keyof IncidentTargetsView | 'quarantine'> {
  return withIsoDates(row);
}
