import { ChatPlatformClient } from '@lib/chat-platform';
import { DEFAULT_RATE_LIMITS } from '@lib/sandbox';
import type { AppProcess } from '../support/app-process';
import { RecoveryStack } from '../support/recovery-stack';
import { RestoreHarness } from '../support/restore-harness';
import { raid } from '../support/restore-scenario';
import { waitFor } from '../support/wait';
import { recordOutcome } from './support/fault-report';

const RANDOM_RESTORES = 3;
/** How long the platform misbehaves; the restores then have their retry policy's time to finish. */
const CHAOS_MS = 20_000;
const FAILURE_STATUSES = [429, 500, 502, 503] as const;

/** A small seeded generator (mulberry32), so a failing run can be replayed with its printed seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** How the live guild differs from the snapshot (jest's diff), or null when it equals it. */
function differences(state: { live: unknown; snapshot: unknown }): string | null {
  try {
    expect(state.live).toEqual(state.snapshot);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Names present more often in the live guild than in the snapshot: something was created twice. */
function duplicatesOf(state: { live: unknown; snapshot: unknown }): number {
  const names = (value: unknown) => {
    const { roles = [], channels = [] } = value as {
      roles?: { name: string }[];
      channels?: { name: string }[];
    };
    const counts = new Map<string, number>();
    for (const item of [...roles, ...channels]) counts.set(item.name, (counts.get(item.name) ?? 0) + 1);
    return counts;
  };
  const snapshot = names(state.snapshot);
  let extra = 0;
  for (const [name, count] of names(state.live)) extra += Math.max(0, count - (snapshot.get(name) ?? 0));
  return extra;
}

/**
 * Restores while their worker dies and while the platform misbehaves, with recovery's API and its
 * Temporal worker as separate processes, as deployed.
 */
describe('restores under faults', () => {
  const stack = new RecoveryStack({ worker: false });
  const harness = new RestoreHarness(stack);
  let worker: AppProcess;

  beforeAll(async () => {
    await stack.start();
    await harness.open();
    worker = await stack.startRecoveryProcess({ RECOVERY_ROLE: 'worker' });
  });

  afterAll(async () => {
    await worker?.stop();
    await stack.stop();
    await harness.close();
  });

  /** A raided guild with many roles to recreate, and its restore started. */
  async function raidedAndRestoring() {
    const scenario = await harness.protectedGuild({ extraRoles: 12 });
    await raid(stack.platform, scenario.seeded);
    const raider = new ChatPlatformClient({
      apiBaseUrl: `${stack.platform.url}/api`,
      botToken: 'fake-bot-token',
    });
    for (let i = 0; i < 12; i++)
      await raider.deleteRole(scenario.seeded.guildId, scenario.seeded.roles[`extra-${i}`]);
    const started = await harness.start(scenario.snapshotId);
    if (started.status !== 202) throw new Error(`start: ${JSON.stringify(started)}`);
    return { ...scenario, jobId: started.body.id as string };
  }

  type Progress = { current_step?: string; steps?: { name: string; status: string; done: number }[] };

  /** Kills the worker once `due` holds for the job's progress, starts a new one, and checks the end. */
  async function killedAndResumed(
    due: { what: string; holds: (progress: Progress, liveChannels: string[]) => boolean },
    notes: string,
  ) {
    // One request a route per 700 ms: the restore takes long enough to be killed in the middle.
    stack.platform.setRateLimits({ perRoute: { limit: 1, windowMs: 700 } });
    const { guildId, seeded, payload, jobId } = await raidedAndRestoring();
    await waitFor(
      due.what,
      async () => {
        const job = await harness.getJob(jobId);
        const live = stack.platform.guild(seeded.guildId).channels.map((channel) => channel.name);
        return due.holds((job.body.progress as Progress | undefined) ?? {}, live);
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    await worker.stop('SIGKILL');
    worker = await stack.startRecoveryProcess({ RECOVERY_ROLE: 'worker' });
    stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);

    const job = await harness.finished(jobId, 120_000);
    const state = await harness.restoredState(guildId, seeded.guildId, payload);
    const equal = differences(state) === null;
    expect(job).toMatchObject({ status: 'completed' });
    expect(state.live).toEqual(state.snapshot);
    expect(duplicatesOf(state)).toBe(0);
    recordOutcome({
      fault: 'worker SIGKILL mid-restore',
      checked: 'a new worker completes the job; the guild equals the snapshot',
      sent: 1,
      delivered: job.status === 'completed' && equal ? 1 : 0,
      duplicated: duplicatesOf(state),
      lost: job.status === 'completed' && equal ? 0 : 1,
      notes,
    });
  }

  it('a worker killed with SIGKILL mid-restore, then a new one: the job completes and the guild equals the snapshot', async () => {
    await killedAndResumed(
      {
        what: 'the restore to be recreating roles',
        holds: (progress) => progress.current_step === 'CreateOrUpdateRoles',
      },
      'killed during CreateOrUpdateRoles',
    );
  });

  it('a worker killed while roles and channels are being recreated side by side: the resumed job ends with no duplicate role or channel', async () => {
    const running = (progress: Progress, name: string) =>
      progress.steps?.some((step) => step.name === name && step.status === 'running') ?? false;
    await killedAndResumed(
      {
        // The Staff category is back (its role, Moderator, is made first) while roles are still
        // being made: both steps have done part of their work.
        what: 'a channel recreated while the roles step still runs',
        holds: (progress, live) =>
          live.includes('Staff') &&
          running(progress, 'CreateOrUpdateRoles') &&
          running(progress, 'CreateOrUpdateChannels'),
      },
      'killed during overlapped CreateOrUpdateRoles and CreateOrUpdateChannels',
    );
  });

  it('the platform answering 429 and 5xx at random: each restore completes, or fails cleanly with live sync resumed', async () => {
    const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000);
    const random = seededRandom(seed);
    const restores = [];
    for (let i = 0; i < RANDOM_RESTORES; i++) restores.push(await raidedAndRestoring());

    // While they run: for CHAOS_MS, a 429 or a 5xx or two every 0.3-1 s on the routes restores use.
    let injected = 0;
    const chaosEnds = Date.now() + CHAOS_MS;
    const chaos = (async () => {
      while (Date.now() < chaosEnds) {
        const status = FAILURE_STATUSES[Math.floor(random() * FAILURE_STATUSES.length)];
        const times = 1 + Math.floor(random() * 2);
        stack.platform.injectFailure({
          path: random() < 0.5 ? /^\/guilds\// : /^\/channels\//,
          status,
          times,
          retryAfterSeconds: status === 429 ? 0.2 : undefined,
        });
        injected += times;
        await new Promise((resolve) => setTimeout(resolve, 300 + random() * 700));
      }
    })();
    const jobs = await Promise.all(restores.map((restore) => harness.finished(restore.jobId, 150_000)));
    await chaos;
    // What the restores did not use up would fail this test's own reads below.
    stack.platform.clearFailures();

    let completed = 0;
    let failedCleanly = 0;
    let duplicated = 0;
    const problems: string[] = [];
    for (const [index, job] of jobs.entries()) {
      const { guildId, seeded, payload, jobId } = restores[index];
      const paused = await harness.dataSource.query(
        `SELECT 1 FROM recovery.live_sync_pauses WHERE guild_id = $1`,
        [guildId],
      );
      const state = await harness.restoredState(guildId, seeded.guildId, payload);
      duplicated += duplicatesOf(state);
      if (job.status === 'completed') {
        const diff = differences(state);
        if (diff === null && paused.length === 0) completed += 1;
        else problems.push(`${jobId}: completed, but ${diff ?? 'live sync is still paused'}`);
      } else if (job.status === 'failed') {
        const [ended] = await harness.dataSource.query(
          `SELECT 1 FROM recovery.outbox WHERE event_type = 'RestoreFailed' AND envelope->'payload'->>'restore_job_id' = $1`,
          [jobId],
        );
        if (paused.length === 0 && ended) failedCleanly += 1;
        else problems.push(`${jobId}: failed without RestoreFailed or with live sync still paused`);
      } else {
        problems.push(`${jobId}: ended ${String(job.status)}`);
      }
    }
    recordOutcome({
      fault: 'platform 429/5xx at random',
      checked: 'completed = snapshot, or failed with RestoreFailed and live sync resumed',
      sent: RANDOM_RESTORES,
      delivered: completed + failedCleanly,
      duplicated,
      lost: RANDOM_RESTORES - completed - failedCleanly,
      notes: `seed=${seed}, ${injected} injected failures, ${completed} completed, ${failedCleanly} failed cleanly${problems.length ? `; ${problems.join('; ')}` : ''}`,
    });
    expect(problems).toEqual([]);
  });
});
