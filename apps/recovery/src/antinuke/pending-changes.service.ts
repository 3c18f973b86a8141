import { Inject, Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import type { AntiNukeSettingsOutcome } from '@lib/contracts';
import type { DomainError } from '@lib/problem-details';
import { DataSource, type EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { isGuildOwner } from '../guilds/guild-owner';
import { GuildRegistry } from '../guilds/guild-registry.service';
import type { Guild } from '../guilds/guild.entity';
import { RecoveryEvents } from '../recovery-events';
import { AntiNukeSettingsRepository } from './antinuke-settings.repository';
import { GUARD_SETTINGS, type GuardSettings } from './guard-settings';
import { ownerOnly } from './owner-only';
import { type PendingChange, PendingChangesRepository } from './pending-changes.repository';
import { AntiNukeSettingsApplier, settingsOf } from './settings-applier';
import { settingsChange, type SettingField } from './settings-change';
import type { AntiNukeSettings } from './workflows/antinuke-contract';
import { AntiNukeErrors } from './antinuke.errors';

/** Who acts: the service's user id (null for the system) and their platform user id. */
export interface Actor {
  userId: string | null;
  platformUserId: string;
}

const MINUTE_MS = 60_000;
/** Due changes applied per pass; the rest wait for the next one. */
const DUE_BATCH = 100;

/**
 * A change loosening AntiNuke asked for by anyone but the owner waits: the owner is told (the
 * event's DM), may refuse it or apply it early, and otherwise it applies after the delay.
 */
@Injectable()
export class PendingChangesService {
  private readonly logger = new Logger(PendingChangesService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly platform: ChatPlatformClient,
    private readonly guilds: GuildRegistry,
    private readonly settings: AntiNukeSettingsRepository,
    private readonly pending: PendingChangesRepository,
    private readonly applier: AntiNukeSettingsApplier,
    private readonly events: RecoveryEvents,
    @Inject(GUARD_SETTINGS) private readonly guard: GuardSettings,
  ) {}

  /** Keeps `after` as the guild's pending change (replacing any), announced; returns it. */
  async hold(
    manager: EntityManager,
    guild: Guild,
    actor: Actor,
    before: AntiNukeSettings,
    after: AntiNukeSettings,
    loosened: SettingField[],
  ): Promise<PendingChange> {
    const change: PendingChange = {
      id: uuidv7(),
      guild_id: guild.id,
      requested_by_user: actor.userId,
      requested_by_platform_user_id: actor.platformUserId,
      before,
      after,
      loosened,
      requested_at: new Date(),
      applies_at: new Date(Date.now() + this.guard.looseningDelayMinutes * MINUTE_MS),
    };
    const replaced = await this.pending.replace(manager, change);
    await this.announce(manager, guild, 'pending', actor, change, { replacedChangeId: replaced });
    return change;
  }

  /** The owner refuses the pending change: it never applies. */
  async refuse(guildId: string, changeId: string, owner: Actor): Promise<void> {
    const guild = await this.requireOwner(guildId, owner);
    await this.dataSource.transaction(async (manager) => {
      const change = await this.pending.take(manager, guildId, { changeId });
      if (!change) throw pendingChangeNotFound();
      await this.announce(manager, guild, 'refused', owner, change);
    });
  }

  /** The owner applies the pending change now. */
  async approve(guildId: string, changeId: string, owner: Actor): Promise<void> {
    const guild = await this.requireOwner(guildId, owner);
    await this.dataSource.transaction(async (manager) => {
      const change = await this.pending.take(manager, guildId, { changeId });
      if (!change) throw pendingChangeNotFound();
      await this.applyChange(manager, guild, change, 'approved', owner);
    });
  }

  /** Applies every change due by `now`; a guild whose change cannot apply now is tried next pass. */
  async applyDue(now: Date = new Date()): Promise<number> {
    let applied = 0;
    for (const guildId of await this.pending.dueGuilds(now, DUE_BATCH)) {
      try {
        const guild = await this.guilds.get(guildId);
        const done = await this.dataSource.transaction(async (manager) => {
          const change = await this.pending.take(manager, guildId, { dueBy: now });
          if (!change) return false;
          const requester = {
            userId: change.requested_by_user,
            platformUserId: change.requested_by_platform_user_id,
          };
          await this.applyChange(manager, guild, change, 'applied_after_delay', requester);
          return true;
        });
        if (done) applied += 1;
      } catch (error) {
        this.logger.warn(
          { guild_id: guildId, err: String(error) },
          'pending antinuke change not applied yet',
        );
      }
    }
    return applied;
  }

  /** The setting as it is now, with the fields the change set (others may have changed since). */
  private async applyChange(
    manager: EntityManager,
    guild: Guild,
    change: PendingChange,
    outcome: AntiNukeSettingsOutcome,
    actor: Actor,
  ): Promise<void> {
    const current = settingsOf(await this.settings.get(guild.id, manager, { lock: true }));
    const { fields } = settingsChange(change.before, change.after);
    const next: AntiNukeSettings = { ...current };
    for (const field of Object.keys(fields) as SettingField[]) {
      if (fields[field] !== 'unchanged') Object.assign(next, { [field]: change.after[field] });
    }
    await this.applier.apply(manager, guild.id, next);
    await this.announce(manager, guild, outcome, actor, { ...change, before: current, after: next });
  }

  /** The event of one outcome of a change, naming who did it and who asked. */
  async announce(
    manager: EntityManager,
    guild: Guild,
    outcome: AntiNukeSettingsOutcome,
    actor: Actor,
    change: Pick<PendingChange, 'before' | 'after'> & Partial<PendingChange>,
    { replacedChangeId = null }: { replacedChangeId?: string | null } = {},
  ): Promise<void> {
    await this.events.antiNukeSettingsChanged(manager, {
      guild_id: guild.id,
      guild_name: guild.name,
      owner_platform_user_id: guild.ownerPlatformUserId,
      outcome,
      change_id: change.id ?? null,
      actor_platform_user_id: actor.platformUserId,
      actor_user_id: actor.userId,
      requested_by_platform_user_id: change.requested_by_platform_user_id ?? actor.platformUserId,
      before: change.before,
      after: change.after,
      loosened: settingsChange(change.before, change.after).loosened,
      applies_at: outcome === 'pending' && change.applies_at ? change.applies_at.toISOString() : null,
      replaced_change_id: replacedChangeId,
    });
  }

  private async requireOwner(guildId: string, actor: Actor): Promise<Guild> {
    const guild = await this.guilds.get(guildId);
    if (!(await isGuildOwner(this.platform, guild, actor.platformUserId))) throw ownerOnly();
    return guild;
  }
}

export function pendingChangeNotFound(): DomainError {
  return AntiNukeErrors.pendingChangeNotFound();
}
