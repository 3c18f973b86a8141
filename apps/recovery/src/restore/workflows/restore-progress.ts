import {
  CHANGE_STEPS,
  type ChangeStep,
  type PlatformWait,
  type PlatformWaitReason,
  type ProgressSummary,
  type StepName,
  type StepOutcome,
  type StepStatus,
} from './restore-contract';

const ALL_STEPS: StepName[] = [
  'ValidateSnapshot',
  'CreatePreRestoreSnapshot',
  'PauseLiveSync',
  ...CHANGE_STEPS,
];

const WAIT_SUBJECTS: Record<PlatformWaitReason, string> = {
  role_creation_quota: "the platform's role creation quota",
  channel_creation_quota: "the platform's channel creation quota",
  channel_edit_limit: "the platform's limit on channel name and topic edits",
  rate_limit: "the platform's rate limit",
};

/** "Waiting for the platform's role creation quota until 2026-11-30T10:00:00.000Z". */
export function describeWait(wait: PlatformWait): string {
  return `Waiting for ${WAIT_SUBJECTS[wait.reason]} until ${wait.until}`;
}

/**
 * Done/total per step, answered by the `getProgress` query. Totals start from the approved
 * preview and grow if a step finds more to do than the preview showed (the guild changed since).
 */
export class RestoreProgress {
  private readonly steps = new Map<StepName, { status: StepStatus; done: number; total: number }>();
  private readonly waits = new Map<ChangeStep, PlatformWait>();

  constructor(totals: Partial<Record<ChangeStep, number>>) {
    for (const name of ALL_STEPS) {
      const total = isChangeStep(name) ? (totals[name] ?? 0) : 1;
      this.steps.set(name, { status: 'pending', done: 0, total });
    }
  }

  /** A resumed run goes on counting from an earlier run's progress (RestoreResume). */
  carryOver(previous: ProgressSummary): void {
    for (const { name, done, total } of previous.steps) {
      const step = this.steps.get(name);
      if (step) Object.assign(step, { done, total: Math.max(step.total, total) });
    }
  }

  start(name: StepName): void {
    this.step(name).status = 'running';
  }

  advance(name: ChangeStep, outcome: StepOutcome): void {
    const step = this.step(name);
    step.done += outcome.created + outcome.updated + outcome.deleted;
    step.total = Math.max(step.total, step.done + outcome.remaining);
  }

  /** The step waits for the platform until `wait.until` (StepOutcome.pause). */
  wait(name: ChangeStep, wait: PlatformWait): void {
    this.waits.set(name, wait);
  }

  /** The step's wait is over (or cut short by a cancel). */
  resume(name: ChangeStep): void {
    this.waits.delete(name);
  }

  finish(name: StepName): void {
    const step = this.step(name);
    step.status = 'done';
    // A finished change step did all there was; any other step is one unit of work.
    if (isChangeStep(name)) step.total = step.done;
    else step.done = step.total;
  }

  skip(name: StepName): void {
    const step = this.step(name);
    step.status = 'skipped';
    step.total = 0;
  }

  /** Marks the running step and every step not reached with how the run ended. */
  end(status: 'failed' | 'canceled'): void {
    this.waits.clear();
    for (const step of this.steps.values()) {
      if (step.status === 'running') step.status = status;
      else if (step.status === 'pending') step.status = 'canceled';
    }
  }

  summary(): ProgressSummary {
    const steps = ALL_STEPS.map((name) => ({ name, ...this.step(name) }));
    const waiting = this.earliestWait();
    return {
      done: steps.reduce((sum, step) => sum + step.done, 0),
      total: steps.reduce((sum, step) => sum + step.total, 0),
      // Steps may run side by side: the first of them in the appendix's order.
      current_step: steps.find((step) => step.status === 'running')?.name ?? null,
      steps,
      ...(waiting && { waiting }),
    };
  }

  private earliestWait(): ProgressSummary['waiting'] {
    let earliest: [ChangeStep, PlatformWait] | undefined;
    for (const entry of this.waits) if (!earliest || entry[1].until < earliest[1].until) earliest = entry;
    if (!earliest) return undefined;
    const [step, wait] = earliest;
    return { step, ...wait, message: describeWait(wait) };
  }

  private step(name: StepName) {
    return this.steps.get(name)!;
  }
}

function isChangeStep(name: StepName): name is ChangeStep {
  return (CHANGE_STEPS as readonly StepName[]).includes(name);
}
