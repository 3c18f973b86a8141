import type { RestoreResultSummary } from '@lib/contracts';
import {
  CHANGE_STEPS,
  type RestoreActivities,
  type RestoreFailure,
  STEP_ACTIVITY,
  type StepActivityName,
  type StepOutcome,
} from './restore-contract';

/** A step's outcome when it has done all its work. */
export const STEP_DONE: StepOutcome = { created: 1, updated: 0, deleted: 0, remaining: 0 };

/**
 * A restore's summary with nothing done: every counter counted even when its step did not run, at
 * 0 (members' and bans' counters appear only when their steps ran).
 */
export const NOTHING_DONE: RestoreResultSummary = {
  roles_created: 0,
  roles_updated: 0,
  roles_deleted: 0,
  channels_created: 0,
  channels_updated: 0,
  channels_deleted: 0,
  overrides_applied: 0,
  overrides_removed: 0,
  guild_settings_updated: 0,
  skipped: 0,
};

type Name = keyof RestoreActivities;

/** What a run calls after the step it stops at (failed, or the last before a cancel). */
export const UNSUCCESSFUL_END: Name[] = ['resumeLiveSync', 'endRestoreUnsuccessfully'];

/** What an activity does instead of succeeding; `call` counts its calls, from 1. */
export type ActivityBehaviour = Partial<Record<Name, (call: number, input: unknown) => Promise<unknown>>>;

/**
 * Restore activities for the procedure's tests (both engines run the same one): each records its
 * call and succeeds, every step with STEP_DONE, unless `behave` says otherwise.
 */
export function fakeRestoreActivities(behave: ActivityBehaviour = {}) {
  const calls: Name[] = [];
  /** Each call's input, in the order of `calls`. */
  const inputs: unknown[] = [];
  const endings: RestoreFailure[] = [];
  const count = (name: Name) => calls.filter((made) => made === name).length;
  /** The calls from the first call of `name` on. */
  const callsFrom = (name: Name) => calls.slice(calls.indexOf(name));
  const activity =
    (name: Name, result: unknown) =>
    (input: unknown): Promise<never> => {
      calls.push(name);
      inputs.push(input);
      if (name === 'endRestoreUnsuccessfully') endings.push(input as RestoreFailure);
      return (behave[name]?.(count(name), input) ?? Promise.resolve(result)) as Promise<never>;
    };
  const activities: RestoreActivities = {
    validateSnapshot: activity('validateSnapshot', undefined),
    createPreRestoreSnapshot: activity('createPreRestoreSnapshot', { snapshotId: null, warning: null }),
    pauseLiveSync: activity('pauseLiveSync', undefined),
    resumeLiveSync: activity('resumeLiveSync', undefined),
    ...(Object.fromEntries(
      CHANGE_STEPS.map((step) => [STEP_ACTIVITY[step], activity(STEP_ACTIVITY[step], STEP_DONE)]),
    ) as Record<StepActivityName, (input: unknown) => Promise<never>>),
    completeRestore: activity('completeRestore', undefined),
    endRestoreUnsuccessfully: activity('endRestoreUnsuccessfully', undefined),
  };
  return { activities, calls, inputs, endings, count, callsFrom };
}
