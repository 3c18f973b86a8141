import { Injectable, Logger } from '@nestjs/common';
import { type DomainEvent, type EventPayloads, PLAN_FEATURES, type PlanFeature } from '@lib/contracts';
import { type EventHandler, PermanentEventError } from '@lib/messaging';
import type { EntityManager } from 'typeorm';
import { GuildsRepository } from '../guilds/guilds.repository';
import { AntiNukeSettingsRepository } from './antinuke-settings.repository';
import { AntiNukeRunner } from './antinuke-runner';
import { type AntiNukeEntitlements, startingSettings } from './workflows/antinuke-contract';

/**
 * docs/behaviour.md §6: LicenseUpgraded with ANTINUKE_DETECT starts the guild's AntiNuke workflow; a
 * LicenseDowngraded that takes AntiNuke features away ends it (ANTINUKE_DETECT) or switches
 * auto-action off (ANTINUKE_AUTO_ACTION, docs/behaviour.md appendix rule 7). Runs in the transaction that
 * records the event: an engine outage throws, nothing commits, and the consumer redelivers.
 */
@Injectable()
export class AntiNukeLicenseHandler implements EventHandler {
  readonly consumer = 'antinuke';
  readonly eventTypes = ['LicenseUpgraded', 'LicenseDowngraded'] as const;
  private readonly logger = new Logger(AntiNukeLicenseHandler.name);

  constructor(
    private readonly settings: AntiNukeSettingsRepository,
    private readonly runner: AntiNukeRunner,
    private readonly guilds: GuildsRepository,
  ) {}

  async handle(event: DomainEvent, manager: EntityManager): Promise<void> {
    if (event.type === 'LicenseUpgraded') {
      await this.upgraded(event.guild_id, event.payload as EventPayloads['LicenseUpgraded'], manager);
    } else if (event.type === 'LicenseDowngraded') {
      await this.downgraded(event.guild_id, event.payload as EventPayloads['LicenseDowngraded'], manager);
    }
  }

  private async upgraded(
    guildId: string,
    payload: EventPayloads['LicenseUpgraded'],
    manager: EntityManager,
  ): Promise<void> {
    const features = featureList(payload?.features, 'features');
    if (!features.includes('ANTINUKE_DETECT')) return;
    requireGuildId(guildId);
    if (!(await this.guilds.exists(guildId, manager))) {
      this.logger.warn(
        { guild_id: guildId },
        'LicenseUpgraded for a guild recovery does not know; AntiNuke not started',
      );
      return;
    }
    const entitlements: AntiNukeEntitlements = {
      detect: true,
      auto_action_allowed: features.includes('ANTINUKE_AUTO_ACTION'),
    };
    const stored = await this.settings.get(guildId, manager);
    const settings = startingSettings(stored, entitlements.auto_action_allowed);
    if (stored.auto_action_enabled && !settings.auto_action_enabled) {
      await this.settings.switchAutoActionOff(guildId, manager);
    }
    const { runId } = await this.runner.ensureRunning(guildId, settings, entitlements);
    this.logger.log({ guild_id: guildId, run_id: runId, ...entitlements }, 'antinuke workflow running');
  }

  private async downgraded(
    guildId: string,
    payload: EventPayloads['LicenseDowngraded'],
    manager: EntityManager,
  ): Promise<void> {
    const removed = featureList(payload?.removed_features, 'removed_features');
    const features = featureList(payload?.features, 'features');
    const losesDetection = removed.includes('ANTINUKE_DETECT');
    const losesAutoAction =
      removed.includes('ANTINUKE_AUTO_ACTION') || !features.includes('ANTINUKE_AUTO_ACTION');
    if (!losesDetection && !removed.includes('ANTINUKE_AUTO_ACTION')) return;
    requireGuildId(guildId);
    if (losesAutoAction) await this.settings.switchAutoActionOff(guildId, manager);
    const entitlements: AntiNukeEntitlements = {
      detect: !losesDetection,
      auto_action_allowed: !losesAutoAction,
    };
    const signalled = await this.runner.signalEntitlements(guildId, entitlements);
    this.logger.log(
      { guild_id: guildId, ...entitlements, workflow_running: signalled },
      losesDetection ? 'antinuke detection removed' : 'antinuke auto-action switched off',
    );
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function requireGuildId(guildId: string): void {
  if (typeof guildId !== 'string' || !UUID.test(guildId))
    throw new PermanentEventError('guild_id must be a UUID');
}

function featureList(value: unknown, field: string): PlanFeature[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new PermanentEventError(`${field} must be a list of plan features`);
  }
  return value.filter((item): item is PlanFeature => (PLAN_FEATURES as readonly string[]).includes(item));
}
