import { Injectable, Logger } from '@nestjs/common';
import { EntitlementsClient } from '@lib/entitlements';
import { DomainError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { AntiNukeIncidentsRepository, type IncidentView } from './antinuke-incidents.repository';
import { AntiNukeSettingsRepository } from './antinuke-settings.repository';
import { AntiNukeWorkflows } from './antinuke-workflows.service';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { GuildMemberNames } from '../guilds/guild-member-names';
import type { AntiNukeView, ListIncidentsQuery, UpdateAntiNukeSettingsDto } from './antinuke.dto';
import type { AntiNukeSettings } from './workflows/antinuke-contract';

/**
 * The guild administrator's view of AntiNuke: its setting, the plan's part, and the incidents.
 * Its routes have checked MANAGE_GUILD on the guild already.
 */
@Injectable()
export class AntiNukeService {
  private readonly logger = new Logger(AntiNukeService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly entitlements: EntitlementsClient,
    private readonly settings: AntiNukeSettingsRepository,
    private readonly incidents: AntiNukeIncidentsRepository,
    private readonly workflows: AntiNukeWorkflows,
    private readonly guilds: GuildRegistry,
    private readonly names: GuildMemberNames,
  ) {}

  async get(guildId: string): Promise<AntiNukeView> {
    return this.view(guildId);
  }

  /**
   * The plan must include AntiNuke, and auto-action too to switch that on (403 ErrPermissionDenied
   * with `required_feature`). The running workflow learns the new setting in the same transaction
   * that stores it: if the engine cannot be told, nothing changes. A body without `enabled` or
   * `exempt_user_ids` keeps the stored ones, read under the row's lock (docs/behaviour.md §1.6).
   */
  async update(guildId: string, body: UpdateAntiNukeSettingsDto): Promise<AntiNukeView> {
    // Auto-action is named first: switching it on without ENTERPRISE is the refusal users meet.
    if (body.auto_action_enabled || body.auto_lockdown_enabled) {
      await this.entitlements.requireFeature(guildId, 'ANTINUKE_AUTO_ACTION');
    }
    await this.entitlements.requireFeature(guildId, 'ANTINUKE_DETECT');
    await this.dataSource.transaction(async (manager) => {
      const stored = await this.settings.get(guildId, manager, { lock: true });
      const settings: AntiNukeSettings = {
        enabled: body.enabled ?? stored.enabled,
        exempt_user_ids: body.exempt_user_ids ?? stored.exempt_user_ids,
        threshold: body.threshold,
        window_seconds: body.window_seconds,
        auto_action_enabled: body.auto_action_enabled,
        auto_action_mode: body.auto_action_mode ?? stored.auto_action_mode,
        auto_lockdown_enabled: body.auto_lockdown_enabled ?? stored.auto_lockdown_enabled,
      };
      await this.settings.put(guildId, settings, manager);
      await this.workflows.signalSettings(guildId, settings).catch((error: unknown) => {
        this.logger.error({ err: error, guild_id: guildId }, 'antinuke settings could not be signalled');
        throw new DomainError(
          'ErrWorkflowUnavailable',
          503,
          'AntiNuke could not be updated',
          'The running AntiNuke could not be reached, so the setting was not changed. Try again in a moment.',
        );
      });
    });
    return this.view(guildId);
  }

  async listIncidents(
    guildId: string,
    query: ListIncidentsQuery,
  ): Promise<{ items: IncidentView[]; next_cursor: string | null }> {
    return this.incidents.list(guildId, query);
  }

  private async view(guildId: string): Promise<AntiNukeView> {
    const [stored, entitlements, running, guild] = await Promise.all([
      this.settings.get(guildId),
      this.entitlements.get(guildId),
      this.workflows.isRunning(guildId),
      this.guilds.get(guildId),
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
    };
  }
}
