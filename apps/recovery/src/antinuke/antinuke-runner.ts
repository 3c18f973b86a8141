import type { AntiNukeEntitlements, AntiNukeSettings } from './workflows/antinuke-contract';

/**
 * Starting, telling and asking the per-guild AntiNuke workflow, from the API and the event
 * consumer. On Temporal or in this process (workflow-engine/), as WORKFLOW_ENGINE says;
 * WorkflowEngineModule provides the one.
 */
export abstract class AntiNukeRunner {
  /**
   * Starts the guild's workflow, or only signals it when it is already running: a redelivered
   * LicenseUpgraded never starts a second one. A run that has ended (downgrade) may be followed
   * by a new one.
   */
  abstract ensureRunning(
    guildId: string,
    settings: AntiNukeSettings,
    entitlements: AntiNukeEntitlements,
  ): Promise<{ runId: string }>;

  /** false when no workflow runs for the guild (nothing to tell); throws when the engine fails. */
  abstract signalSettings(guildId: string, settings: AntiNukeSettings): Promise<boolean>;

  abstract signalEntitlements(guildId: string, entitlements: AntiNukeEntitlements): Promise<boolean>;

  /** Whether the guild's workflow runs now; null when the engine does not answer in time. */
  abstract isRunning(guildId: string): Promise<boolean | null>;
}
