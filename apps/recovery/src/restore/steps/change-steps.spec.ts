import type { RestoreScope } from '@lib/contracts';
import { fakeRestoreActivities, NOTHING_DONE } from '../workflows/restore-activities.fixture';
import {
  OVERLAPPED_PHASES,
  type RestoreEnding,
  STEP_ACTIVITY,
  STEP_DEPENDS_ON,
  type StepOutcome,
} from '../workflows/restore-contract';
import { runRestore } from '../workflows/restore-procedure';
import { RestoreProgress } from '../workflows/restore-progress';
import { CHANGE_STEP_TABLE, CHANGE_STEPS, type ChangeStep, SETUP_STEP_LABELS } from './change-steps';

/** The steps running builds know, as Temporal's histories name and order them. */
const RECORDED_ACTIVITIES: Record<string, string> = {
  DeleteRemovedOverrides: 'deleteRemovedOverrides',
  DeleteRemovedChannels: 'deleteRemovedChannels',
  DeleteRemovedRoles: 'deleteRemovedRoles',
  CreateOrUpdateRoles: 'createOrUpdateRoles',
  CreateOrUpdateChannels: 'createOrUpdateChannels',
  ApplyPermissionOverrides: 'applyPermissionOverrides',
  UpdateGuildSettings: 'updateGuildSettings',
  RestoreMemberRoles: 'restoreMemberRoles',
  LiftBans: 'liftBans',
};
const RECORDED_PHASES = [
  ['DeleteRemovedChannels', 'DeleteRemovedRoles'],
  ['DeleteRemovedOverrides', 'CreateOrUpdateRoles', 'CreateOrUpdateChannels', 'ApplyPermissionOverrides'],
  ['UpdateGuildSettings', 'RestoreMemberRoles', 'LiftBans'],
];

describe('CHANGE_STEP_TABLE', () => {
  it('keeps the activity names and phases that running workflows replay', () => {
    for (const [step, activity] of Object.entries(RECORDED_ACTIVITIES)) {
      expect(STEP_ACTIVITY[step as ChangeStep]).toBe(activity);
    }
    const known = OVERLAPPED_PHASES.map((phase) => phase.filter((step) => step in RECORDED_ACTIVITIES));
    expect(known).toEqual(RECORDED_PHASES);
  });

  it('gives every step its own activity and label, and makes it depend only on earlier steps of its phase', () => {
    const activities = CHANGE_STEPS.map((step) => STEP_ACTIVITY[step]);
    expect(new Set(activities).size).toBe(CHANGE_STEPS.length);
    const labels = [
      ...Object.values(SETUP_STEP_LABELS),
      ...CHANGE_STEPS.map((s) => CHANGE_STEP_TABLE[s].label),
    ];
    expect(new Set(labels).size).toBe(labels.length);
    for (const step of CHANGE_STEPS) {
      const phase = OVERLAPPED_PHASES.find((steps) => steps.includes(step))!;
      for (const other of STEP_DEPENDS_ON[step]) {
        expect(phase.indexOf(other)).toBeGreaterThanOrEqual(0);
        expect(CHANGE_STEPS.indexOf(other)).toBeLessThan(CHANGE_STEPS.indexOf(step));
      }
    }
  });
});

describe('the summary a restore ends with', () => {
  /** Runs every step once on activities answering `outcome`; the summary completeRestore gets. */
  async function summaryOf(scope: RestoreScope[], outcome: StepOutcome) {
    const fake = fakeRestoreActivities(
      Object.fromEntries(CHANGE_STEPS.map((step) => [STEP_ACTIVITY[step], () => Promise.resolve(outcome)])),
    );
    await runRestore(
      { jobId: 'job', scope, createPreRestoreSnapshot: false, totals: {} },
      {
        activities: fake.activities,
        cancelRequested: () => false,
        classify: (error) => {
          throw error;
        },
        shielded: (work) => work(),
        sleepUntil: () => Promise.resolve(),
      },
      new RestoreProgress({}),
    );
    return (fake.inputs[fake.calls.indexOf('completeRestore')] as RestoreEnding).summary;
  }

  it("adds each step's counts to its counters, overrides applied counting creates and updates", async () => {
    const outcome = { created: 2, updated: 3, deleted: 5, assigned: 7, remaining: 0 };
    const summary = await summaryOf(
      ['roles', 'channels', 'permission_overrides', 'guild_settings', 'member_roles', 'bans'],
      outcome,
    );
    expect(summary).toEqual({
      roles_created: 2,
      roles_updated: 3,
      roles_deleted: 5,
      channels_created: 2,
      channels_updated: 3,
      channels_deleted: 5,
      overrides_applied: 5,
      overrides_removed: 5,
      guild_settings_updated: 3,
      skipped: 0,
      members_updated: 3,
      member_roles_restored: 7,
      bans_lifted: 5,
    });
  });

  it("leaves out members' and bans' counters when their steps did not run, and zeroes the others", async () => {
    const summary = await summaryOf(['guild_settings'], {
      created: 0,
      updated: 1,
      deleted: 0,
      remaining: 0,
    });
    expect(summary).toEqual({ ...NOTHING_DONE, guild_settings_updated: 1 });
  });
});
