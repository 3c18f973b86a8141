import { Injectable, Logger } from '@nestjs/common';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { DestructiveAction, DestructiveActionSink } from '../../antinuke/destructive-action';
import { antinukeWorkflowId, DESTRUCTIVE_ACTION_SIGNAL } from '../../antinuke/workflows/antinuke-contract';

/** Live sync must not stall on a slow engine; an action that cannot be delivered is logged. */
const SIGNAL_TIMEOUT_MS = 5_000;

/**
 * What live sync reports destructive actions to (DESTRUCTIVE_ACTION_SINK): a signal to the
 * guild's AntiNuke workflow. A guild without one (no ANTINUKE_DETECT) is passed over; nothing
 * is ever thrown back into live sync.
 */
@Injectable()
export class AntiNukeSignalSink implements DestructiveActionSink {
  private readonly logger = new Logger(AntiNukeSignalSink.name);

  constructor(private readonly temporal: Client) {}

  async record(action: DestructiveAction): Promise<void> {
    try {
      await this.temporal.withDeadline(Date.now() + SIGNAL_TIMEOUT_MS, () =>
        this.temporal.workflow
          .getHandle(antinukeWorkflowId(action.guild_id))
          .signal(DESTRUCTIVE_ACTION_SIGNAL, action),
      );
    } catch (error) {
      const fields = {
        guild_id: action.guild_id,
        kind: action.kind,
        audit_log_entry_id: action.audit_log_entry_id,
      };
      if (error instanceof WorkflowNotFoundError) {
        this.logger.debug(fields, 'no antinuke workflow runs for the guild; action not counted');
        return;
      }
      this.logger.error({ ...fields, err: error }, 'destructive action could not be signalled to antinuke');
    }
  }
}
