import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export type LockdownState = 'starting' | 'active' | 'lifted';

export interface LockdownRow {
  id: string;
  guild_id: string;
  state: LockdownState;
  started_at: Date;
  lockdown_until: Date;
  started_by_user: string | null;
  incident_id: string | null;
  everyone_permissions_before: string | null;
  everyone_permissions_set: string | null;
  send_messages_taken: boolean;
  invites_paused_until: Date | null;
  lifted_at: Date | null;
  lifted_by_user: string | null;
  lift_reason: 'expired' | 'user' | null;
  everyone_permissions_restored: string | null;
}

/** `recovery.antinuke_lockdowns`: each lockdown with exactly what it changed; one not lifted per guild. */
@Injectable()
export class LockdownRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims the guild for a new lockdown (`starting`); null when one is starting or in force (the
   * unique index decides between two at once).
   */
  async claim(input: {
    id: string;
    guildId: string;
    until: Date;
    userId: string | null;
    incidentId: string | null;
  }): Promise<LockdownRow | null> {
    const rows = await this.dataSource.query<LockdownRow[]>(
      `INSERT INTO recovery.antinuke_lockdowns (id, guild_id, state, lockdown_until, started_by_user, incident_id)
       VALUES ($1, $2, 'starting', $3, $4, $5)
       ON CONFLICT (guild_id) WHERE state <> 'lifted' DO NOTHING
       RETURNING *`,
      [input.id, input.guildId, input.until, input.userId, input.incidentId],
    );
    return rows[0] ?? null;
  }

  /** The claim is given up: the platform refused, nothing was changed. */
  async release(id: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM recovery.antinuke_lockdowns WHERE id = $1 AND state = 'starting'`,
      [id],
    );
  }

  /**
   * What the lockdown is about to change, written before it changes anything: a start cut short
   * (the process stopped) is lifted from this record like any other.
   */
  async recordPlan(
    id: string,
    plan: { before: string; set: string | null; invitesPausedUntil: Date },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE recovery.antinuke_lockdowns
          SET everyone_permissions_before = $2, everyone_permissions_set = $3,
              send_messages_taken = $3::text IS NOT NULL, invites_paused_until = $4
        WHERE id = $1 AND state = 'starting'`,
      [id, plan.before, plan.set, plan.invitesPausedUntil],
    );
  }

  async activate(manager: EntityManager, id: string): Promise<LockdownRow> {
    const [rows] = await manager.query<[LockdownRow[], number]>(
      `UPDATE recovery.antinuke_lockdowns SET state = 'active'
        WHERE id = $1 AND state = 'starting'
        RETURNING *`,
      [id],
    );
    return rows[0];
  }

  /** Marks it lifted; null when it was lifted already (by someone else, or the timer). */
  async markLifted(
    manager: EntityManager,
    id: string,
    lift: { userId: string | null; reason: 'expired' | 'user'; restored: string | null },
  ): Promise<LockdownRow | null> {
    const [rows] = await manager.query<[LockdownRow[], number]>(
      `UPDATE recovery.antinuke_lockdowns
          SET state = 'lifted', lifted_at = now(), lifted_by_user = $2, lift_reason = $3,
              everyone_permissions_restored = $4
        WHERE id = $1 AND state <> 'lifted'
        RETURNING *`,
      [id, lift.userId, lift.reason, lift.restored],
    );
    return rows[0] ?? null;
  }

  /** The guild's lockdown starting or in force, if any. */
  async current(guildId: string): Promise<LockdownRow | null> {
    const [row] = await this.dataSource.query<LockdownRow[]>(
      `SELECT * FROM recovery.antinuke_lockdowns WHERE guild_id = $1 AND state <> 'lifted'`,
      [guildId],
    );
    return row ?? null;
  }

  /** The guild's most recent lockdown, lifted or not. */
  async latest(guildId: string): Promise<LockdownRow | null> {
    const [row] = await this.dataSource.query<LockdownRow[]>(
      `SELECT * FROM recovery.antinuke_lockdowns WHERE guild_id = $1 ORDER BY started_at DESC LIMIT 1`,
      [guildId],
    );
    return row ?? null;
  }

  /**
   * Lockdowns to lift, oldest first: those in force whose time is up, and starts cut short (still
   * `starting` a minute on, their process gone), which may have changed the guild already. Not in a
   * guild the bot has left: nothing can be given back there until it is back, when this finds it.
   * `skip`: lockdowns the caller tries later, so that they never fill the batch.
   */
  async due(limit: number, skip: readonly string[] = []): Promise<LockdownRow[]> {
    return this.dataSource.query<LockdownRow[]>(
      `SELECT l.* FROM recovery.antinuke_lockdowns l
         JOIN recovery.guilds g ON g.id = l.guild_id
        WHERE ((l.state = 'active' AND l.lockdown_until <= now())
           OR (l.state = 'starting' AND l.started_at < now() - interval '1 minute'))
          AND g.bot_installed_at IS NOT NULL AND g.removed_at IS NULL
          AND NOT (l.id = ANY($2::uuid[]))
        ORDER BY l.lockdown_until LIMIT $1`,
      [limit, skip],
    );
  }
}
