import { randomUUID } from 'node:crypto';
import type { ActivityOptions } from '@temporalio/workflow';
import { type InProcessActivityContext, withActivityOptions } from './in-process-activities';
import type { DestructiveAction, MemberRolesRemoved } from '../../antinuke/destructive-action';
import type {
  AntiNukeActivities,
  AntiNukeEntitlements,
  AntiNukeSettings,
  AntiNukeWorkflowInput,
  AntiNukeWorkflowResult,
  AntiNukeWorkflowState,
} from '../../antinuke/workflows/antinuke-contract';
import { AntiNukeGuard, type AntiNukeLog } from '../../antinuke/workflows/antinuke-guard';
import { guardGuild } from '../../antinuke/workflows/incident-loop';
import {
  AUTO_ACTION_OPTIONS,
  INCIDENT_LOCKDOWN_OPTIONS,
  INCIDENT_SNAPSHOT_OPTIONS,
  OPEN_INCIDENT_OPTIONS,
  QUARANTINE_OPTIONS,
  RECORD_TARGETS_OPTIONS,
} from '../../antinuke/workflows/antinuke-policy';
import { incidentIdFrom } from '../../antinuke/workflows/incident-id';

const POLICY: Record<keyof AntiNukeActivities, ActivityOptions> = {
  takeIncidentSnapshot: INCIDENT_SNAPSHOT_OPTIONS,
  removeActorRoles: AUTO_ACTION_OPTIONS,
  quarantineActor: QUARANTINE_OPTIONS,
  startIncidentLockdown: INCIDENT_LOCKDOWN_OPTIONS,
  openIncident: OPEN_INCIDENT_OPTIONS,
  recordIncidentTargets: RECORD_TARGETS_OPTIONS,
};

/** The activities as a guard calls them in process: each with its policy from antinuke-policy.ts. */
export function inProcessAntiNukeActivities(
  activities: AntiNukeActivities,
  context: Omit<InProcessActivityContext, 'signal' | 'runsWhenStopped'> = {},
): AntiNukeActivities {
  // No stop signal: an incident under way at shutdown is finished, not cut short.
  return withActivityOptions(activities, (name) => POLICY[name as keyof AntiNukeActivities], context);
}

/**
 * One guild's AntiNuke without Temporal (WORKFLOW_ENGINE=in-process): the same guard as
 * antinuke.workflow.ts, signals as method calls, activities called directly with the same
 * policies. It never continues as new (it has no history to keep short). `ended` resolves with the
 * result when detection is removed, or null when the process stops.
 */
export class InProcessAntiNukeRun {
  readonly runId = randomUUID();
  readonly ended: Promise<AntiNukeWorkflowResult | null>;
  private readonly guard: AntiNukeGuard;
  private wake: (() => void) | undefined;
  private stopped = false;
  private over = false;

  constructor(input: AntiNukeWorkflowInput, activities: AntiNukeActivities, log: AntiNukeLog) {
    this.guard = new AntiNukeGuard(input, log);
    this.ended = this.run(activities, log);
  }

  destructiveAction(action: DestructiveAction): void {
    this.guard.destructiveAction(action, Date.now());
    this.notify();
  }

  memberRolesRemoved(removal: MemberRolesRemoved): void {
    this.guard.memberRolesRemoved(removal, Date.now());
    this.notify();
  }

  changeSettings(settings: AntiNukeSettings): void {
    this.guard.changeSettings(settings);
    this.notify();
  }

  changeEntitlements(entitlements: AntiNukeEntitlements): void {
    this.guard.changeEntitlements(entitlements);
    this.notify();
  }

  /** Still guarding: false once the run has returned, before `ended` has told anyone. */
  get active(): boolean {
    return !this.over;
  }

  state(): AntiNukeWorkflowState {
    return this.guard.state();
  }

  /** Stops waiting for actions; an incident under way is finished first. */
  stop(): Promise<AntiNukeWorkflowResult | null> {
    this.stopped = true;
    this.notify();
    return this.ended;
  }

  private async run(
    activities: AntiNukeActivities,
    log: AntiNukeLog,
  ): Promise<AntiNukeWorkflowResult | null> {
    try {
      const ended = await guardGuild(this.guard, {
        activities,
        waitUntil: (ready) => this.waitUntil(ready),
        // Stopping ends the run the way a roll-over ends a Temporal run: between incidents.
        shouldRollOver: () => this.stopped,
        now: () => Date.now(),
        newIncidentId: () => incidentIdFrom(Date.now(), randomUUID()),
        log,
      });
      return ended === 'detection_removed' ? this.guard.result() : null;
    } finally {
      this.over = true;
    }
  }

  private async waitUntil(ready: () => boolean): Promise<void> {
    while (!ready()) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
