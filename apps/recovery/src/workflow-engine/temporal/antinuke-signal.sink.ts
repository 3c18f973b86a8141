import { Injectable, Logger } from '@nestjs/common';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type {
  DestructiveAction,
  DestructiveActionSink,
  MemberRolesRemoved,
} from '../../antinuke/destructive-action';
import {
  antinukeWorkflowId,
  DESTRUCTIVE_ACTION_SIGNAL,
  MEMBER_ROLES_REMOVED_SIGNAL,
} from '../../antinuke/workflows/antinuke-contract';

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
    await this.signal(action.guild_id, DESTRUCTIVE_ACTION_SIGNAL, action, {
      kind: action.kind,
      audit_log_entry_id: action.audit_log_entry_id,
    });
  }

  async recordRoleRemoval(removal: MemberRolesRemoved): Promise<void> {
    await this.signal(removal.guild_id, MEMBER_ROLES_REMOVED_SIGNAL, removal, {
      kind: 'member_role_remove',
      audit_log_entry_id: removal.audit_log_entry_id,
    });
  }

  private async signal(
    guildId: string,
    name: string,
    payload: DestructiveAction | MemberRolesRemoved,
    described: { kind: string; audit_log_entry_id: string },
  ): Promise<void> {
    try {
      await this.temporal.withDeadline(Date.now() + SIGNAL_TIMEOUT_MS, () =>
        this.temporal.workflow.getHandle(antinukeWorkflowId(guildId)).signal(name, payload),
      );
    } catch (error) {
      const fields = { guild_id: guildId, ...described };
      if (error instanceof WorkflowNotFoundError) {
        this.logger.debug(fields, 'no antinuke workflow runs for the guild; action not counted');
        return;
      }
      this.logger.error({ ...fields, err: error }, 'destructive action could not be signalled to antinuke');
    }
  }
}
