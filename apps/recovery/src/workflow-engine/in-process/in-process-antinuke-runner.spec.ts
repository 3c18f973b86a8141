import { Logger } from '@nestjs/common';
import type { EntitlementsClient } from '@lib/entitlements';
import type { AntiNukeSettingsRepository } from '../../antinuke/antinuke-settings.repository';
import type { DestructiveAction } from '../../antinuke/destructive-action';
import { InProcessAntiNukeRunner } from './in-process-antinuke-runner';
import type { AntiNukeSettings } from '../../antinuke/workflows/antinuke-contract';
import { fakeAntiNukeActivities } from './in-process-antinuke.fixture';

const GUILD = '01a20182-0000-7000-8000-000000000001';
const ENTERPRISE = ['RECOVERY_RESTORE', 'ANTINUKE_DETECT', 'ANTINUKE_AUTO_ACTION'];
const SETTINGS: AntiNukeSettings = {
  enabled: true,
  exempt_user_ids: [],
  threshold: 2,
  window_seconds: 60,
  auto_action_enabled: true,
  auto_action_mode: 'quarantine',
  auto_lockdown_enabled: false,
};

function action(n: number): DestructiveAction {
  return {
    guild_id: GUILD,
    platform_guild_id: '900000000000000001',
    kind: 'role_delete',
    actor_platform_user_id: '200000000000000002',
    target_id: null,
    audit_log_entry_id: `70000000000000000${n}`,
    at: new Date().toISOString(),
  };
}

function setUp(features: string[] | Error = ENTERPRISE) {
  const { activities, opened, removed } = fakeAntiNukeActivities();
  const entitlements = {
    get: jest.fn(() =>
      features instanceof Error
        ? Promise.reject(features)
        : Promise.resolve({ plan_code: 'ENTERPRISE', features }),
    ),
  };
  const settings = { get: jest.fn(() => Promise.resolve({ ...SETTINGS, updated_at: null })) };
  const sut = new InProcessAntiNukeRunner(
    activities,
    settings as unknown as AntiNukeSettingsRepository,
    entitlements as unknown as EntitlementsClient,
  );
  const incidents = async (count: number) => {
    for (let i = 0; i < 100 && opened.length < count; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return opened;
  };
  return { sut, entitlements, settings, opened, removed, incidents };
}

describe(InProcessAntiNukeRunner.name, () => {
  // Failures are logged on purpose here; the assertions say what matters.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });

  it('starts one guard per guild however often it is asked, and signals the running one', async () => {
    const { sut } = setUp();
    const entitlements = { detect: true, auto_action_allowed: true };
    const first = await sut.ensureRunning(GUILD, SETTINGS, entitlements);
    const again = await sut.ensureRunning(GUILD, SETTINGS, entitlements);
    expect(again.runId).toBe(first.runId);
    expect(await sut.signalSettings(GUILD, { ...SETTINGS, threshold: 5 })).toBe(true);
    expect(await sut.isRunning(GUILD)).toBe(true);
    await sut.beforeApplicationShutdown();
  });

  it('counts live sync’s actions and opens the incident', async () => {
    const { sut, incidents, removed } = setUp();
    await sut.ensureRunning(GUILD, SETTINGS, { detect: true, auto_action_allowed: true });
    await sut.record(action(1));
    await sut.record(action(2));
    expect(await incidents(1)).toEqual([expect.objectContaining({ guildId: GUILD, snapshotId: 'snap-1' })]);
    expect(removed).toEqual(['200000000000000002']);
    await sut.beforeApplicationShutdown();
  });

  it('brings a guard back after a restart when the plan has ANTINUKE_DETECT, from the stored setting', async () => {
    const { sut, incidents, settings } = setUp();
    // No LicenseUpgraded since this process started: the first action brings the guard back.
    await sut.record(action(1));
    await sut.record(action(2));
    expect(await incidents(1)).toHaveLength(1);
    expect(settings.get).toHaveBeenCalledTimes(1);
    expect(await sut.isRunning(GUILD)).toBe(true);
    await sut.beforeApplicationShutdown();
  });

  it('brings none back for a plan without ANTINUKE_DETECT, or after detection was removed here', async () => {
    const pro = setUp(['RECOVERY_RESTORE']);
    await pro.sut.record(action(1));
    expect(await pro.sut.isRunning(GUILD)).toBe(false);

    const downgraded = setUp();
    await downgraded.sut.ensureRunning(GUILD, SETTINGS, { detect: true, auto_action_allowed: true });
    expect(
      await downgraded.sut.signalEntitlements(GUILD, { detect: false, auto_action_allowed: false }),
    ).toBe(true);
    // The cached plan may still say ENTERPRISE for a minute; the downgrade is newer.
    for (let i = 0; i < 20 && (await downgraded.sut.isRunning(GUILD)); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await downgraded.sut.isRunning(GUILD)).toBe(false);
    await downgraded.sut.record(action(1));
    await downgraded.sut.record(action(2));
    expect(downgraded.opened).toEqual([]);
  });

  it('never throws into live sync, and answers null for "is it running" when the plan cannot be read', async () => {
    const { sut } = setUp(new Error('licensing down'));
    await expect(sut.record(action(1))).resolves.toBeUndefined();
    expect(await sut.isRunning(GUILD)).toBeNull();
  });
});
