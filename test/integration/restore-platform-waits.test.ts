import type { ChatPlatformClient } from '@lib/chat-platform';
import { DEFAULT_RATE_LIMITS } from '@lib/sandbox';
import { v7 as uuidv7 } from 'uuid';
import { RecoveryStack } from '../support/recovery-stack';
import { ALL_SCOPES, RestoreHarness } from '../support/restore-harness';
import { raid } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

type Body = Record<string, unknown>;

/**
 * The platform's long waits (a guild's role creation quota, a channel's name/topic edits) met by a
 * restore, on both workflow engines: the job pauses, its progress says what it waits for and until
 * when, then it goes on and completes; a cancel during the wait ends it canceled. The fake's quota
 * window is shortened to seconds, and recovery waits out no more than a second inside a call.
 */
describe.each([
  { engine: 'in-process', env: { WORKFLOW_ENGINE: 'in-process', TEMPORAL_ADDRESS: undefined } },
  { engine: 'temporal', env: {} },
])('restore waiting for the platform ($engine)', ({ env }) => {
  const stack = new RecoveryStack({
    worker: true,
    env: { ...env, PLATFORM_LONGEST_RATE_LIMIT_WAIT_MS: '1000' },
  });
  const harness = new RestoreHarness(stack, async (guildId, plan) => {
    await harness.dataSource.query(
      `INSERT INTO licensing.licenses (id, guild_id, plan_id, expires_at, last_event_at, last_event_id)
       SELECT $1, $2, id, now() + interval '30 days', now(), $3 FROM licensing.plans WHERE code = $4`,
      [uuidv7(), guildId, uuidv7(), plan],
    );
  });
  const { post, getJob, protectedGuild, finished } = harness;
  let reader: ChatPlatformClient;

  beforeAll(async () => {
    await stack.start();
    await harness.open();
    ({ reader } = harness);
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await harness.close();
  });

  afterEach(() => stack.platform.setRateLimits(DEFAULT_RATE_LIMITS));

  /** A guild that lost `count` roles, its snapshot taken before. */
  async function rolesLost(count: number) {
    const scenario = await protectedGuild({ extraRoles: count });
    for (let i = 0; i < count; i++) {
      await reader.deleteRole(scenario.seeded.guildId, scenario.seeded.roles[`extra-${i}`]);
    }
    return scenario;
  }

  async function waitingProgress(jobId: string): Promise<Body> {
    return waitFor(
      'the restore to wait for the platform',
      async () => {
        const job = await getJob(jobId);
        const progress = job.body.progress as { waiting?: Body | null } | undefined;
        return progress?.waiting ? job.body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  it('pauses at the role creation quota, says so with the time, then completes', async () => {
    const { seeded, snapshotId } = await rolesLost(12);
    stack.platform.setRateLimits({ roleCreations: { limit: 5, windowMs: 4_000 } });

    const started = await harness.start(snapshotId, ['roles']);
    expect(started.status).toBe(202);
    const jobId = started.body.id as string;

    const waiting = await waitingProgress(jobId);
    const startedAt = Date.now();
    expect(waiting.status).toBe('running');
    const wait = (waiting.progress as { waiting: { until: string } }).waiting;
    expect(wait).toEqual({
      step: 'CreateOrUpdateRoles',
      reason: 'role_creation_quota',
      until: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      message: `Waiting for the platform's role creation quota until ${wait.until}`,
    });
    expect(Date.parse(wait.until)).toBeGreaterThan(startedAt - 1_000);
    expect(Date.parse(wait.until)).toBeLessThanOrEqual(startedAt + 5_000);

    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    expect(job.result_summary).toMatchObject({ roles_created: 12 });
    const roles = stack.platform.guild(seeded.guildId).roles.map((role) => role.name);
    for (let i = 0; i < 12; i++) expect(roles).toContain(`extra-${i}`);
  });

  it('ends canceled when canceled during the wait, without waiting it out', async () => {
    const { snapshotId } = await rolesLost(6);
    stack.platform.setRateLimits({ roleCreations: { limit: 2, windowMs: 120_000 } });

    const started = await harness.start(snapshotId, ['roles']);
    const jobId = started.body.id as string;
    await waitingProgress(jobId);

    const canceled = await post(`/api/v1/restore/${jobId}/cancel`, {});
    expect(canceled.status).toBe(202);
    const job = await finished(jobId, 20_000);
    expect(job.status).toBe('canceled');
  });

  it('keeps waiting across a graceful restart, then completes with each role created once', async () => {
    const { seeded, snapshotId } = await rolesLost(12);
    stack.platform.setRateLimits({ roleCreations: { limit: 5, windowMs: 4_000 } });

    const started = await harness.start(snapshotId, ['roles']);
    const jobId = started.body.id as string;
    await waitingProgress(jobId);

    expect(await stack.recovery.stop('SIGTERM')).toBe(0);
    // A deploy during a wait of up to two days: the stopping process leaves the job running.
    const [stopped] = await harness.dataSource.query<{ status: string }[]>(
      `SELECT status FROM recovery.restore_jobs WHERE id = $1`,
      [jobId],
    );
    expect(stopped.status).toBe('running');
    await stack.restartRecovery();

    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    expect(job.result_summary).toMatchObject({ roles_created: 12 });
    const roles = stack.platform.guild(seeded.guildId).roles.map((role) => role.name);
    for (let i = 0; i < 12; i++) expect(roles.filter((name) => name === `extra-${i}`)).toHaveLength(1);
  }, 120_000);

  it('ends canceled when canceled during a wait resumed after a restart', async () => {
    const { snapshotId } = await rolesLost(6);
    stack.platform.setRateLimits({ roleCreations: { limit: 2, windowMs: 120_000 } });

    const started = await harness.start(snapshotId, ['roles']);
    const jobId = started.body.id as string;
    const before = await waitingProgress(jobId);
    await stack.restartRecovery();

    // The new process waits for the same step until the same time, and says so.
    const after = await waitingProgress(jobId);
    expect(after.progress).toMatchObject({ waiting: (before.progress as Body).waiting });
    const canceled = await post(`/api/v1/restore/${jobId}/cancel`, {});
    expect(canceled.status).toBe(202);
    const job = await finished(jobId, 20_000);
    expect(job.status).toBe('canceled');
  }, 120_000);

  it("edits each channel's name and topic at most once, whatever else changes with them", async () => {
    const { seeded, snapshotId } = await protectedGuild();
    await raid(stack.platform, seeded);
    // Renamed, then given a new topic, then moved out of its category: three edits by the raider.
    await reader.updateChannel(seeded.channels.announcements, { name: 'ads' });
    await reader.updateChannel(seeded.channels.announcements, { topic: 'buy now' });
    await reader.updateChannel(seeded.channels.announcements, { parent_id: null });
    // From here, one name/topic edit per channel per 10 minutes: a second one would wait.
    stack.platform.setRateLimits({ channelNameTopic: { limit: 1, windowMs: 600_000 } });
    const from = Date.now();

    const started = await harness.start(snapshotId, ALL_SCOPES);
    const job = await finished(started.body.id as string, 30_000);

    expect(job.status).toBe('completed');
    const limited = stack.platform
      .requestLog()
      .filter((request) => request.at >= from && request.status === 429);
    expect(limited).toEqual([]);
    const announcements = stack.platform
      .guild(seeded.guildId)
      .channels.find((channel) => channel.id === seeded.channels.announcements);
    expect(announcements).toMatchObject({ name: 'announcements', parent_id: seeded.channels.Info });
  });
});
