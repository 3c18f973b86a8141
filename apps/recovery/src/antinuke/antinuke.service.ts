import { Injectable } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { EntitlementsClient } from '@lib/entitlements';
import { DataSource } from 'typeorm';
import { AntiNukeIncidentsRepository, type IncidentView } from './antinuke-incidents.repository';
import { AntiNukeSettingsRepository } from './antinuke-settings.repository';
import { AntiNukeRunner } from './antinuke-runner';
import { isGuildOwner } from '../guilds/guild-owner';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { GuildMemberNames } from '../guilds/guild-member-names';
import type { Guild } from '../guilds/guild.entity';
import type {
  AntiNukeUpdate,
  AntiNukeView,
  ListIncidentsQuery,
  PendingChangeView,
  UpdateAntiNukeSettingsDto,
} from './antinuke.dto';
import { type PendingChange, PendingChangesRepository } from './pending-changes.repository';
import { type Actor, PendingChangesService } from './pending-changes.service';
import { AntiNukeSettingsApplier, settingsOf } from './settings-applier';
import { newlyExempted, settingsChange } from './settings-change';
import type { AntiNukeSettings } from './workflows/antinuke-contract';
import { AntiNukeErrors } from './antinuke.errors';

/**
 * The guild administrator's view of AntiNuke: its setting, the plan's part, and the incidents.
 * Its routes have checked MANAGE_GUILD on the guild already.
 */
@Injectable()
export class AntiNukeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly entitlements: EntitlementsClient,
    private readonly settings: AntiNukeSettingsRepository,
    private readonly incidents: AntiNukeIncidentsRepository,
    private readonly runner: AntiNukeRunner,
    private readonly guilds: GuildRegistry,
    private readonly names: GuildMemberNames,
    private readonly platform: ChatPlatformClient,
    private readonly pending: PendingChangesRepository,
    private readonly pendingChanges: PendingChangesService,
    private readonly applier: AntiNukeSettingsApplier,
  ) {}

  async get(guildId: string, viewer: Actor): Promise<AntiNukeView> {
    return this.view(guildId, viewer);
  }

  /**
   * The plan must include AntiNuke, and auto-action too to switch that on (403 ErrPermissionDenied
   * with `required_feature`). A body without `enabled` or `exempt_user_ids` keeps the stored ones,
   * read under the row's lock (docs/behaviour.md §1.6).
   *
   * Nobody may add themself to the exemptions (403 ErrSelfExemption, recorded). The owner's change,
   * and anyone's that loosens nothing, applies at once: the running workflow learns it in the
   * transaction that stores it. Anyone else's change that loosens AntiNuke becomes the guild's
   * pending change (`pending`), which the owner is told of and which applies after the delay.
   */
  async update(guildId: string, body: UpdateAntiNukeSettingsDto, caller: Actor): Promise<AntiNukeUpdate> {
    // Auto-action is named first: switching it on without ENTERPRISE is the refusal users meet.
    if (body.auto_action_enabled || body.auto_lockdown_enabled) {
      await this.entitlements.requireFeature(guildId, 'ANTINUKE_AUTO_ACTION');
    }
    await this.entitlements.requireFeature(guildId, 'ANTINUKE_DETECT');
    const guild = await this.guilds.get(guildId);
    const owner = await isGuildOwner(this.platform, guild, caller.platformUserId);
    const decided = await this.dataSource.transaction(async (manager) => {
      const before = settingsOf(await this.settings.get(guildId, manager, { lock: true }));
      const after: AntiNukeSettings = {
        enabled: body.enabled ?? before.enabled,
        exempt_user_ids: body.exempt_user_ids ?? before.exempt_user_ids,
        threshold: body.threshold,
        window_seconds: body.window_seconds,
        auto_action_enabled: body.auto_action_enabled,
        auto_action_mode: body.auto_action_mode ?? before.auto_action_mode,
        auto_lockdown_enabled: body.auto_lockdown_enabled ?? before.auto_lockdown_enabled,
      };
      if (newlyExempted(before, after).includes(caller.platformUserId)) {
        await this.pendingChanges.announce(manager, guild, 'self_exemption_refused', caller, {
          before,
          after,
        });
        return { kind: 'self_exemption' } as const;
      }
      const { loosened } = settingsChange(before, after);
      if (!owner && loosened.length > 0) {
        const change = await this.pendingChanges.hold(manager, guild, caller, before, after, loosened);
        return { kind: 'pending', change } as const;
      }
      await this.applier.apply(manager, guildId, after);
      await this.pendingChanges.announce(manager, guild, 'applied', caller, { before, after });
      return { kind: 'applied' } as const;
    });
    if (decided.kind === 'self_exemption') {
      throw AntiNukeErrors.selfExemption();
    }
    if (decided.kind === 'pending')
      return { status: 'pending', body: await this.pendingView(guild, decided.change) };
    return { status: 'applied', body: await this.view(guildId, caller) };
  }

  /** The guild's pending change, as the dashboard shows it. */
  private async pendingView(guild: Guild, change: PendingChange): Promise<PendingChangeView> {
    const [name] = await this.names.of(guild.platformGuildId, [change.requested_by_platform_user_id]);
    return {
      id: change.id,
      requested_by_platform_user_id: change.requested_by_platform_user_id,
      requested_by_name: name?.name ?? null,
      before: change.before,
      after: change.after,
      loosened: change.loosened,
      requested_at: new Date(change.requested_at).toISOString(),
      applies_at: new Date(change.applies_at).toISOString(),
    };
  }

  async refusePending(guildId: string, changeId: string, owner: Actor): Promise<AntiNukeView> {
    await this.pendingChanges.refuse(guildId, changeId, owner);
    return this.view(guildId, owner);
  }

  async approvePending(guildId: string, changeId: string, owner: Actor): Promise<AntiNukeView> {
    await this.pendingChanges.approve(guildId, changeId, owner);
    return this.view(guildId, owner);
  }

  async listIncidents(
    guildId: string,
    query: ListIncidentsQuery,
  ): Promise<{ items: IncidentView[]; next_cursor: string | null }> {
    return this.incidents.list(guildId, query);
  }

  /** `viewer_is_owner` from the registry's record (what the owner alone may do checks the platform too). */
  private async view(guildId: string, viewer: Actor): Promise<AntiNukeView> {
    const [stored, entitlements, running, guild, pending] = await Promise.all([
      this.settings.get(guildId),
      this.entitlements.get(guildId),
      this.runner.isRunning(guildId),
      this.guilds.get(guildId),
      this.pending.get(guildId),
    ]);
    return {
      guild_id: guildId,
      enabled: stored.enabled,
      exempt_user_ids: stored.exempt_user_ids,
      exempt_users: await this.names.of(guild.platformGuildId, stored.exempt_user_ids),
      threshold: stored.threshold,
      window_seconds: stored.window_seconds,
      auto_action_enabled: stored.auto_action_enabled,
      auto_action_mode: stored.auto_action_mode,
      auto_lockdown_enabled: stored.auto_lockdown_enabled,
      updated_at: stored.updated_at,
      plan_code: entitlements.plan_code,
      detection_available: entitlements.features.includes('ANTINUKE_DETECT'),
      auto_action_available: entitlements.features.includes('ANTINUKE_AUTO_ACTION'),
      workflow_running: running,
      pending_change: pending ? await this.pendingView(guild, pending) : null,
      viewer_is_owner: guild.ownerPlatformUserId === viewer.platformUserId,
    };
  }
}
