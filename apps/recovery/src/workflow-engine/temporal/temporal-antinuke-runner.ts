import { Injectable } from '@nestjs/common';
import { WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import { TemporalEngineAdapter } from './temporal-engine-adapter';
import type { AntiNukeRunner } from '../../antinuke/antinuke-runner';
import {
  ANTINUKE_WORKFLOW_TYPE,
  type AntiNukeEntitlements,
  type AntiNukeSettings,
  type AntiNukeWorkflowInput,
  antinukeWorkflowId,
  ENTITLEMENTS_CHANGED_SIGNAL,
  SETTINGS_CHANGED_SIGNAL,
} from '../../antinuke/workflows/antinuke-contract';

/** A call to the engine gives up after this; the caller redelivers or answers 503. */
const ENGINE_CALL_TIMEOUT_MS = 10_000;
/** A dashboard read does not wait long for "is it running". */
const DESCRIBE_TIMEOUT_MS = 2_000;

/** The per-guild AntiNuke workflow on Temporal: signalWithStart, signals, describe. */
@Injectable()
export class TemporalAntiNukeRunner extends TemporalEngineAdapter implements AntiNukeRunner {
  /** signalWithStart; ALLOW_DUPLICATE lets a new run follow one a downgrade ended. */
  async ensureRunning(
    guildId: string,
    settings: AntiNukeSettings,
    entitlements: AntiNukeEntitlements,
  ): Promise<{ runId: string }> {
    const input: AntiNukeWorkflowInput = { guildId, settings, entitlements };
    const handle = await this.temporal.withDeadline(Date.now() + ENGINE_CALL_TIMEOUT_MS, () =>
      this.temporal.workflow.signalWithStart(ANTINUKE_WORKFLOW_TYPE, {
        taskQueue: this.options.taskQueue,
        workflowId: antinukeWorkflowId(guildId),
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        args: [input],
        signal: ENTITLEMENTS_CHANGED_SIGNAL,
        signalArgs: [entitlements],
      }),
    );
    return { runId: handle.signaledRunId };
  }

  async signalSettings(guildId: string, settings: AntiNukeSettings): Promise<boolean> {
    return this.signalIfRunning(guildId, SETTINGS_CHANGED_SIGNAL, settings);
  }

  async signalEntitlements(guildId: string, entitlements: AntiNukeEntitlements): Promise<boolean> {
    return this.signalIfRunning(guildId, ENTITLEMENTS_CHANGED_SIGNAL, entitlements);
  }

  async isRunning(guildId: string): Promise<boolean | null> {
    try {
      const description = await this.temporal.withDeadline(Date.now() + DESCRIBE_TIMEOUT_MS, () =>
        this.temporal.workflow.getHandle(antinukeWorkflowId(guildId)).describe(),
      );
      return description.status.name === 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      this.logger.warn({ err: error, guild_id: guildId }, 'antinuke workflow could not be described');
      return null;
    }
  }

  private async signalIfRunning(guildId: string, signal: string, argument: unknown): Promise<boolean> {
    try {
      await this.temporal.withDeadline(Date.now() + ENGINE_CALL_TIMEOUT_MS, () =>
        this.temporal.workflow.getHandle(antinukeWorkflowId(guildId)).signal(signal, argument),
      );
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }
}
