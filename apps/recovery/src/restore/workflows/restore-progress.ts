import {
  CHANGE_STEPS,
  type ChangeStep,
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

/**
 * Done/total per step, answered by the `getProgress` query. Totals start from the approved
 * preview and grow if a step finds more to do than the preview showed (the guild changed since).
 */
export class RestoreProgress {
  private readonly steps = new Map<StepName, { status: StepStatus; done: number; total: number }>();

  constructor(totals: Partial<Record<ChangeStep, number>>) {
    for (const name of ALL_STEPS) {
      const total = isChangeStep(name) ? (totals[name] ?? 0) : 1;
      this.steps.set(name, { status: 'pending', done: 0, total });
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
    for (const step of this.steps.values()) {
      if (step.status === 'running') step.status = status;
      else if (step.status === 'pending') step.status = 'canceled';
    }
  }

  summary(): ProgressSummary {
    const steps = ALL_STEPS.map((name) => ({ name, ...this.step(name) }));
    return {
      done: steps.reduce((sum, step) => sum + step.done, 0),
      total: steps.reduce((sum, step) => sum + step.total, 0),
      // Steps may run side by side: the first of them in the appendix's order.
      current_step: steps.find((step) => step.status === 'running')?.name ?? null,
      steps,
    };
  }

  private step(name: StepName) {
    return this.steps.get(name)!;
  }
}

function isChangeStep(name: StepName): name is ChangeStep {
  return (CHANGE_STEPS as readonly StepName[]).includes(name);
}
