import { ApplicationFailure } from '@temporalio/activity';
import type { DestructiveAction } from '../../antinuke/destructive-action';
import { InProcessAntiNukeRun, inProcessAntiNukeActivities } from './in-process-antinuke-run';
import {
  type AntiNukeWorkflowInput,
  DEFAULT_ANTINUKE_SETTINGS,
} from '../../antinuke/workflows/antinuke-contract';
import { fakeAntiNukeActivities } from './in-process-antinuke.fixture';

const GUILD = '01a20182-0000-7000-8000-000000000001';
const ACTOR = '200000000000000002';
const log = { warn: jest.fn(), error: jest.fn() };

function input(overrides: Partial<AntiNukeWorkflowInput['settings']> = {}): AntiNukeWorkflowInput {
  return {
    guildId: GUILD,
    settings: {
      ...DEFAULT_ANTINUKE_SETTINGS,
      window_seconds: 60,
      auto_action_enabled: true,
      ...overrides,
    },
    entitlements: { detect: true, auto_action_allowed: true },
  };
}

function action(n: number, actor = ACTOR): DestructiveAction {
  return {
    guild_id: GUILD,
    platform_guild_id: '900000000000000001',
    kind: 'channel_delete',
    actor_platform_user_id: actor,
    target_id: `80000000000000000${n}`,
    audit_log_entry_id: `70000000000000000${n}`,
    at: new Date().toISOString(),
  };
}

describe(InProcessAntiNukeRun.name, () => {
  it('opens one incident for a burst: the actor quarantined, the snapshot, then the incident', async () => {
    const fake = fakeAntiNukeActivities();
    const sut = new InProcessAntiNukeRun(input(), inProcessAntiNukeActivities(fake.activities), log);
    const incident = fake.nextIncident();
    sut.destructiveAction(action(1));
    sut.destructiveAction(action(2));
    sut.destructiveAction(action(2)); // the same audit-log entry again
    sut.destructiveAction(action(3));
    await incident;
    sut.destructiveAction(action(4)); // the same burst: no second incident
    expect(fake.opened).toEqual([
      expect.objectContaining({
        guildId: GUILD,
        snapshotId: 'snap-1',
        snapshotError: null,
        autoActionTaken: true,
        burst: expect.objectContaining({
          actor_platform_user_id: ACTOR,
          count: 3,
          audit_log_entry_ids: ['700000000000000001', '700000000000000002', '700000000000000003'],
        }),
      }),
    ]);
    expect(fake.opened[0].incidentId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(fake.removed).toEqual([ACTOR]);
    expect(await sut.stop()).toBeNull();
    expect(sut.state()).toMatchObject({ actions_this_run: 5, incidents_opened: 1, incidents_pending: 0 });
  });

  it('opens the incident without a snapshot when it cannot be taken, with the failure’s type', async () => {
    const fake = fakeAntiNukeActivities(() =>
      Promise.reject(ApplicationFailure.nonRetryable('guild gone', 'ErrGuildNotFound')),
    );
    const sut = new InProcessAntiNukeRun(
      input({ auto_action_enabled: false }),
      inProcessAntiNukeActivities(fake.activities),
      log,
    );
    const incident = fake.nextIncident();
    for (const n of [1, 2, 3]) sut.destructiveAction(action(n));
    await incident;
    expect(fake.opened).toEqual([
      expect.objectContaining({
        snapshotId: null,
        snapshotError: 'ErrGuildNotFound: guild gone',
        autoActionTaken: false,
      }),
    ]);
    expect(fake.removed).toEqual([]);
    await sut.stop();
  });

  it('follows a new setting, and ends when detection is removed', async () => {
    const fake = fakeAntiNukeActivities();
    const sut = new InProcessAntiNukeRun(input(), inProcessAntiNukeActivities(fake.activities), log);
    sut.changeSettings({ ...input().settings, threshold: 2 });
    const incident = fake.nextIncident();
    sut.destructiveAction(action(1));
    sut.destructiveAction(action(2));
    await incident;
    sut.changeEntitlements({ detect: false, auto_action_allowed: false });
    expect(await sut.ended).toEqual({ ended: 'detection_removed', incidents_opened: 1 });
    expect(sut.active).toBe(false);
  });
});
