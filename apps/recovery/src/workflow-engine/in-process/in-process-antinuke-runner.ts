import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { EntitlementsClient } from '@lib/entitlements';
import { ANTINUKE_ACTIVITIES } from '../../antinuke/activities/antinuke.activities';
import { AntiNukeSettingsRepository } from '../../antinuke/antinuke-settings.repository';
import type { AntiNukeRunner } from '../../antinuke/antinuke-runner';
import type {
  DestructiveAction,
  DestructiveActionSink,
  MemberRolesRemoved,
} from '../../antinuke/destructive-action';
import { InProcessAntiNukeRun, inProcessAntiNukeActivities } from './in-process-antinuke-run';
import { InProcessEngineAdapter } from './in-process-engine-adapter';
import {
  type AntiNukeActivities,
  type AntiNukeEntitlements,
  type AntiNukeSettings,
  type AntiNukeWorkflowInput,
  startingSettings,
} from '../../antinuke/workflows/antinuke-contract';
import type { AntiNukeLog } from '../../antinuke/workflows/antinuke-guard';

/**
 * Every guild's AntiNuke run by this process (WORKFLOW_ENGINE=in-process), and the sink live sync
 * reports destructive actions to. The guards live in memory: after a restart a guild's guard comes
 * back the first time it is needed (an action of the guild, the dashboard asking whether it runs)
 * if the plan has ANTINUKE_DETECT, from the stored setting. Actions counted before the restart are
 * forgotten. A guild whose detection was removed while this process ran only comes back with the
 * next LicenseUpgraded, as on Temporal.
 */
@Injectable()
export class InProcessAntiNukeRunner
  extends InProcessEngineAdapter<InProcessAntiNukeRun>
  implements AntiNukeRunner, DestructiveActionSink, BeforeApplicationShutdown
{
  private readonly reviving = new Map<string, Promise<InProcessAntiNukeRun | null>>();
  /** Guilds whose detection was removed here: cached entitlements must not bring them back. */
  private readonly detectionRemoved = new Set<string>();
  private readonly activities: AntiNukeActivities;
  private readonly log: AntiNukeLog;
  private stopping = false;

  constructor(
    @Inject(ANTINUKE_ACTIVITIES) activities: AntiNukeActivities,
    private readonly settings: AntiNukeSettingsRepository,
    private readonly entitlements: EntitlementsClient,
  ) {
    super();
    this.activities = inProcessAntiNukeActivities(activities);
    this.log = {
      warn: (message, fields) => this.logger.warn(fields, message),
      error: (message, fields) => this.logger.error(fields, message),
    };
  }

  /** Like signalWithStart: a running guard gets the entitlements, else a new one starts with them. */
  ensureRunning(
    guildId: string,
    settings: AntiNukeSettings,
    entitlements: AntiNukeEntitlements,
  ): Promise<{ runId: string }> {
    this.detectionRemoved.delete(guildId);
    const run = this.active(guildId) ?? this.startRun({ guildId, settings, entitlements });
    run.changeEntitlements(entitlements);
    return Promise.resolve({ runId: run.runId });
  }

  signalSettings(guildId: string, settings: AntiNukeSettings): Promise<boolean> {
    const run = this.active(guildId);
    run?.changeSettings(settings);
    return Promise.resolve(run !== undefined);
  }

  signalEntitlements(guildId: string, entitlements: AntiNukeEntitlements): Promise<boolean> {
    if (!entitlements.detect) this.detectionRemoved.add(guildId);
    const run = this.active(guildId);
    run?.changeEntitlements(entitlements);
    return Promise.resolve(run !== undefined);
  }

  async isRunning(guildId: string): Promise<boolean | null> {
    try {
      return (await this.runFor(guildId)) !== null;
    } catch (error) {
      this.logger.warn({ err: error, guild_id: guildId }, 'antinuke guard could not be brought back');
      return null;
    }
  }

  /** DESTRUCTIVE_ACTION_SINK: never throws back into live sync. */
  async record(action: DestructiveAction): Promise<void> {
    const fields = {
      guild_id: action.guild_id,
      kind: action.kind,
      audit_log_entry_id: action.audit_log_entry_id,
    };
    try {
      const run = await this.runFor(action.guild_id);
      if (!run) {
        this.logger.debug(fields, 'no antinuke guard for the guild; action not counted');
        return;
      }
      run.destructiveAction(action);
    } catch (error) {
      this.logger.error({ ...fields, err: error }, 'destructive action could not be given to antinuke');
    }
  }

  /** DESTRUCTIVE_ACTION_SINK: a guard that runs records it on an open incident; never throws. */
  async recordRoleRemoval(removal: MemberRolesRemoved): Promise<void> {
    const fields = { guild_id: removal.guild_id, audit_log_entry_id: removal.audit_log_entry_id };
    try {
      const run = await this.runFor(removal.guild_id);
      run?.memberRolesRemoved(removal);
    } catch (error) {
      this.logger.error({ ...fields, err: error }, 'role removal could not be given to antinuke');
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const inTime = await this.settledBeforeShutdown([...this.runs.values()].map((run) => run.stop()));
    if (!inTime) this.logger.warn('antinuke incidents still under way at shutdown were not all recorded');
  }

  /** The guild's guard, brought back after a restart when its plan has ANTINUKE_DETECT. */
  private runFor(guildId: string): Promise<InProcessAntiNukeRun | null> {
    const run = this.active(guildId);
    if (run) return Promise.resolve(run);
    if (this.stopping || this.detectionRemoved.has(guildId)) return Promise.resolve(null);
    let reviving = this.reviving.get(guildId);
    if (!reviving) {
      reviving = this.revive(guildId).finally(() => this.reviving.delete(guildId));
      this.reviving.set(guildId, reviving);
    }
    return reviving;
  }

  private async revive(guildId: string): Promise<InProcessAntiNukeRun | null> {
    const { features } = await this.entitlements.get(guildId);
    if (!features.includes('ANTINUKE_DETECT')) return null;
    const stored = await this.settings.get(guildId);
    // Started meanwhile (LicenseUpgraded), or removed: that answer is newer than ours.
    const current = this.active(guildId);
    if (current || this.stopping || this.detectionRemoved.has(guildId)) return current ?? null;
    const autoActionAllowed = features.includes('ANTINUKE_AUTO_ACTION');
    this.logger.log({ guild_id: guildId }, 'antinuke guard brought back after a restart');
    return this.startRun({
      guildId,
      settings: startingSettings(stored, autoActionAllowed),
      entitlements: { detect: true, auto_action_allowed: autoActionAllowed },
    });
  }

  private active(guildId: string): InProcessAntiNukeRun | undefined {
    const run = this.runs.get(guildId);
    return run?.active ? run : undefined;
  }

  private startRun(input: AntiNukeWorkflowInput): InProcessAntiNukeRun {
    const run = new InProcessAntiNukeRun(input, this.activities, this.log);
    this.runs.set(input.guildId, run);
    run.ended
      .then(
        (result) => {
          if (result) this.logger.log({ guild_id: input.guildId, ...result }, 'antinuke guard ended');
        },
        (error: unknown) =>
          this.logger.error({ err: error, guild_id: input.guildId }, 'antinuke guard stopped unexpectedly'),
      )
      .finally(() => {
        if (this.runs.get(input.guildId) === run) this.runs.delete(input.guildId);
      });
    return run;
  }
}
