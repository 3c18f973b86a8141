import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AntiNukeSettingsRepository } from './antinuke-settings.repository';
import { AntiNukeRunner } from './antinuke-runner';
import type { AntiNukeSettings } from './workflows/antinuke-contract';
import { AntiNukeErrors } from './antinuke.errors';

/**
 * Puts a setting in force: stored, and the running workflow told, in the caller's transaction. If
 * the engine cannot be told, the transaction fails and nothing changes.
 */
@Injectable()
export class AntiNukeSettingsApplier {
  private readonly logger = new Logger(AntiNukeSettingsApplier.name);

  constructor(
    private readonly settings: AntiNukeSettingsRepository,
    private readonly runner: AntiNukeRunner,
  ) {}

  async apply(manager: EntityManager, guildId: string, settings: AntiNukeSettings): Promise<void> {
    await this.settings.put(guildId, settings, manager);
    await this.runner.signalSettings(guildId, settings).catch((error: unknown) => {
      this.logger.error({ err: error, guild_id: guildId }, 'antinuke settings could not be signalled');
      throw AntiNukeErrors.settingsNotSignalled();
    });
  }
}

/** The fields of a stored setting, without its timestamps. */
export function settingsOf(stored: AntiNukeSettings): AntiNukeSettings {
  return {
    enabled: stored.enabled,
    exempt_user_ids: [...stored.exempt_user_ids],
    threshold: stored.threshold,
    window_seconds: stored.window_seconds,
    auto_action_enabled: stored.auto_action_enabled,
    auto_action_mode: stored.auto_action_mode,
    auto_lockdown_enabled: stored.auto_lockdown_enabled,
  };
}
