import { Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import type { DomainError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { isGuildOwner } from '../../guilds/guild-owner';
import { ownerOnly } from '../owner-only';
import { GuildRegistry } from '../../guilds/guild-registry.service';
import { type LockdownEventFacts, RecoveryEvents } from '../../recovery-events';
import { LOCKDOWN_MINUTES_LIMITS } from '../workflows/antinuke-contract';
import { liftedPermissions, lockedPermissions } from './lockdown-permissions';
import { LockdownRepository, type LockdownRow } from './lockdown.repository';
import { AntiNukeErrors } from '../antinuke.errors';

/** Who starts or lifts a lockdown: a manager (their ids), or null for an incident or the timer. */
export interface LockdownActor {
  userId: string;
  platformUserId: string | null;
}

export interface LockdownView {
  id: string;
  state: 'starting' | 'active' | 'lifted';
  started_at: string;
  /** When it lifts itself. */
  lockdown_until: string;
  started_by_user: string | null;
  incident_id: string | null;
  /** @everyone lost SEND_MESSAGES for the lockdown. */
  send_messages_taken: boolean;
  /** Invites and DMs are paused on the platform until then. */
  invites_paused_until: string | null;
  lifted_at: string | null;
  lift_reason: 'expired' | 'user' | null;
}

/**
 * A guild's lockdown (docs/behaviour.md, AntiNuke): the platform's incident actions pause invites
 * and DMs, and @everyone loses SEND_MESSAGES, after what it held is stored; when the time is up
 * (or a manager lifts it) exactly that comes back. One per guild at a time.
 */
@Injectable()
export class LockdownService {
  private readonly logger = new Logger(LockdownService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly lockdowns: LockdownRepository,
    private readonly guilds: GuildRegistry,
    private readonly platform: ChatPlatformClient,
    private readonly events: RecoveryEvents,
  ) {}

  async current(guildId: string): Promise<LockdownView | null> {
    const row = await this.lockdowns.current(guildId);
    return row ? toView(row) : null;
  }

  /**
   * Starts the guild's lockdown for `minutes`; `created` false (and the one in force) when the
   * guild is locked down already. The claim, then the plan, are stored before the platform is
   * changed; LockdownStarted goes out with the activation.
   */
  async start(
    guildId: string,
    input: {
      minutes: number;
      incidentId: string | null;
      userId: string | null;
      platformUserId?: string | null;
    },
  ): Promise<{ created: boolean; lockdown: LockdownView }> {
    const minutes = Math.min(
      Math.max(input.minutes, LOCKDOWN_MINUTES_LIMITS.min),
      LOCKDOWN_MINUTES_LIMITS.max,
    );
    const guild = await this.guilds.get(guildId);
    const until = new Date(Date.now() + minutes * 60_000);
    const claimed = await this.lockdowns.claim({
      id: uuidv7(),
      guildId,
      until,
      userId: input.userId,
      incidentId: input.incidentId,
    });
    if (!claimed) {
      const existing = await this.lockdowns.current(guildId);
      if (existing) return { created: false, lockdown: toView(existing) };
      throw lockdownBusy();
    }
    const reason = { reason: lockdownReason(claimed) };
    try {
      const roles = await this.platform.getRoles(guild.platformGuildId);
      const everyone = roles.find((role) => role.id === guild.platformGuildId);
      if (!everyone) throw new Error('The platform answered no @everyone role');
      const set = lockedPermissions(everyone.permissions);
      await this.lockdowns.recordPlan(claimed.id, {
        before: everyone.permissions,
        set,
        invitesPausedUntil: until,
      });
      const untilIso = until.toISOString();
      await this.platform.setIncidentActions(
        guild.platformGuildId,
        { invites_disabled_until: untilIso, dms_disabled_until: untilIso },
        reason,
      );
      if (set !== null) {
        await this.platform.updateRole(guild.platformGuildId, everyone.id, { permissions: set }, reason);
      }
    } catch (error) {
      await this.undoStart(claimed.id, guild.platformGuildId, reason.reason);
      throw platformRefused(error, 'started');
    }
    const active = await this.dataSource.transaction(async (manager) => {
      const row = await this.lockdowns.activate(manager, claimed.id);
      await this.events.lockdownStarted(manager, row, facts(guild, input.platformUserId ?? null));
      return row;
    });
    this.logger.warn(
      { guild_id: guildId, lockdown_id: active.id, incident_id: input.incidentId },
      'lockdown started',
    );
    return { created: true, lockdown: toView(active) };
  }

  /** Lifts the guild's lockdown now; 404 when none is in force. */
  async liftNow(guildId: string, by: LockdownActor): Promise<LockdownView> {
    const row = await this.lockdowns.current(guildId);
    if (!row || row.state !== 'active') {
      throw AntiNukeErrors.noLockdown();
    }
    // Lifting early loosens the guard: a hijacked manager must not open the guild mid-raid. The
    // owner may; so may the manager who started this lockdown by hand; it lifts itself anyway.
    const ownLockdown = row.incident_id === null && row.started_by_user === by.userId;
    if (!ownLockdown) {
      const guild = await this.guilds.get(guildId);
      if (!by.platformUserId || !(await isGuildOwner(this.platform, guild, by.platformUserId))) {
        throw ownerOnly(
          `Only the server's owner, or whoever started it, may lift a lockdown before its time; it lifts itself at ${row.lockdown_until.toISOString()}.`,
        );
      }
    }
    return toView(await this.lift(row, { by, reason: 'user' }));
  }

  /**
   * Gives back exactly what the lockdown changed: invites and DMs resumed, and @everyone's
   * permissions as before, or, when someone changed them meanwhile, theirs with SEND_MESSAGES back.
   * Marked lifted (and LockdownLifted) only once the platform has it; a lift that finds it lifted
   * already answers it as it is.
   */
  async lift(
    row: LockdownRow,
    input: { by: LockdownActor | null; reason: 'expired' | 'user' },
  ): Promise<LockdownRow> {
    const guild = await this.guilds.get(row.guild_id);
    const reason = { reason: `${lockdownReason(row)} lifted` };
    let restored: string | null = null;
    try {
      await this.platform.setIncidentActions(
        guild.platformGuildId,
        { invites_disabled_until: null, dms_disabled_until: null },
        reason,
      );
      if (row.everyone_permissions_before !== null && row.everyone_permissions_set !== null) {
        const roles = await this.platform.getRoles(guild.platformGuildId);
        const everyone = roles.find((role) => role.id === guild.platformGuildId);
        restored = everyone
          ? liftedPermissions({
              before: row.everyone_permissions_before,
              set: row.everyone_permissions_set,
              current: everyone.permissions,
            })
          : null;
        if (restored !== null) {
          await this.platform.updateRole(
            guild.platformGuildId,
            guild.platformGuildId,
            { permissions: restored },
            reason,
          );
        }
      }
    } catch (error) {
      throw platformRefused(error, 'lifted');
    }
    const lifted = await this.dataSource.transaction(async (manager) => {
      const updated = await this.lockdowns.markLifted(manager, row.id, {
        userId: input.by?.userId ?? null,
        reason: input.reason,
        restored,
      });
      if (updated)
        await this.events.lockdownLifted(manager, updated, facts(guild, input.by?.platformUserId ?? null));
      return updated;
    });
    if (lifted)
      this.logger.warn(
        { guild_id: row.guild_id, lockdown_id: row.id, reason: input.reason },
        'lockdown lifted',
      );
    return lifted ?? (await this.lockdowns.latest(row.guild_id)) ?? row;
  }

  /** A start the platform refused: what it may have changed already is changed back, and the claim goes. */
  private async undoStart(id: string, platformGuildId: string, reason: string): Promise<void> {
    try {
      await this.platform.setIncidentActions(
        platformGuildId,
        { invites_disabled_until: null, dms_disabled_until: null },
        { reason: `${reason} not started` },
      );
      await this.lockdowns.release(id);
    } catch (error) {
      // The claim stays `starting`: the lifter picks it up a minute on and gives back what it recorded.
      this.logger.error({ err: error, lockdown_id: id }, 'lockdown start could not be undone');
    }
  }
}

function lockdownReason(row: LockdownRow): string {
  return row.incident_id ? `AntiNuke lockdown (incident ${row.incident_id})` : `AntiNuke lockdown ${row.id}`;
}

function facts(
  guild: { name: string; ownerPlatformUserId: string },
  byPlatformUserId: string | null,
): LockdownEventFacts {
  return {
    guildName: guild.name,
    ownerPlatformUserId: guild.ownerPlatformUserId,
    byPlatformUserId,
  };
}

function lockdownBusy(): DomainError {
  return AntiNukeErrors.lockdownInProgress();
}

function platformRefused(error: unknown, what: 'started' | 'lifted'): Error {
  if (isChatPlatformError(error) && !error.retryable) {
    return (what === 'started' ? AntiNukeErrors.lockdownNotStarted : AntiNukeErrors.lockdownNotLifted)(
      `The platform refused the bot (${error.code}): it needs Manage Guild and Manage Roles. ${error.message}`,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

function toView(row: LockdownRow): LockdownView {
  const iso = (at: Date | null) => (at ? new Date(at).toISOString() : null);
  return {
    id: row.id,
    state: row.state,
    started_at: new Date(row.started_at).toISOString(),
    lockdown_until: new Date(row.lockdown_until).toISOString(),
    started_by_user: row.started_by_user,
    incident_id: row.incident_id,
    send_messages_taken: row.send_messages_taken,
    invites_paused_until: iso(row.invites_paused_until),
    lifted_at: iso(row.lifted_at),
    lift_reason: row.lift_reason,
  };
}
