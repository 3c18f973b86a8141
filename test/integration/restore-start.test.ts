import type { ChatPlatformClient } from '@lib/chat-platform';
import type { EntitlementsClient } from '@lib/entitlements';
import { DomainError } from '@lib/problem-details';
import type { DataSource, QueryRunner } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { GuildRegistry } from '../../apps/recovery/src/guilds/guild-registry.service';
import type { ScopePermissions } from '../../apps/recovery/src/guilds/scope-permissions';
import type {
  RestoreComparison,
  RestoreComparisons,
} from '../../apps/recovery/src/restore/restore-comparisons';
import { type RestoreDiff, restoreDiffHash } from '../../apps/recovery/src/restore/restore-diff';
import { RestoreJobsRepository } from '../../apps/recovery/src/restore/restore-jobs.repository';
import type { RestoreRunner } from '../../apps/recovery/src/restore/restore-runner';
import { RestoreService } from '../../apps/recovery/src/restore/restore.service';
import type { RestoreWorkflowInput } from '../../apps/recovery/src/restore/workflows/restore-contract';
import { openDataSource } from '../support/database';
import { waitFor } from '../support/wait';
import { OutboxWriter } from '@lib/outbox';
import { RecoveryEvents } from '../../apps/recovery/src/recovery-events';

const PLATFORM_USER = '200000000000000001';

const DIFF: RestoreDiff = {
  roles_to_create: [],
  roles_to_update: [],
  roles_to_delete: [{ id: '900000000000000001', name: 'raider' }],
  channels_to_create: [],
  channels_to_update: [],
  channels_to_delete: [],
  overrides_to_apply: [],
  overrides_to_remove: [],
  guild_settings_diff: {},
  member_roles_to_restore: [],
  members_to_update: 0,
  members_absent: 0,
  bans_to_lift: [],
  skipped: [],
  clamped: [],
  estimated_duration: 'under 10 seconds',
};

/**
 * docs/behaviour.md §4.2 rules 2 and 4 against the real database: whatever another start does to the guild's
 * active job around this one's insert, the answer is this job (inserted, its workflow started) or
 * the 409 of the job that is active, never a job that does not exist. The interleavings are forced
 * through the steps RestoreService takes: the diff computation (between the first check and the
 * insert) and the insert itself.
 */
describe('restore start against a concurrent start', () => {
  let dataSource: DataSource;
  let jobs: RestoreJobsRepository;
  /** What the service runs between its first look for an active job and its insert. */
  let whileComparing: () => Promise<void>;
  const started: RestoreWorkflowInput[] = [];

  const workflows = {
    start: (input: RestoreWorkflowInput) => {
      started.push(input);
      return Promise.resolve(`restore-${input.jobId}`);
    },
  } as unknown as RestoreRunner;

  let sut: RestoreService;

  beforeAll(async () => {
    dataSource = await openDataSource();
    jobs = new RestoreJobsRepository(
      dataSource,
      new RecoveryEvents(new OutboxWriter('recovery', 'recovery')),
    );
    const comparisons = {
      snapshotPayload: () => Promise.resolve({}),
      compare: async () => {
        await whileComparing();
        return { diff: structuredClone(DIFF) } as unknown as RestoreComparison;
      },
    } as unknown as RestoreComparisons;
    const guilds = {
      get: (id: string) => Promise.resolve({ id, platformGuildId: '1' }),
    } as unknown as GuildRegistry;
    const entitlements = { requireRestoreScopes: () => Promise.resolve() } as unknown as EntitlementsClient;
    const scopePermissions = { require: () => Promise.resolve() } as unknown as ScopePermissions;
    // A start reads no owner: the platform is asked only for a job's webhook addresses.
    const platform = {} as ChatPlatformClient;
    sut = new RestoreService(jobs, comparisons, guilds, entitlements, workflows, scopePermissions, platform);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  beforeEach(() => {
    started.length = 0;
    whileComparing = () => Promise.resolve();
  });

  afterEach(() => jest.restoreAllMocks());

  async function guild(): Promise<string> {
    const id = uuidv7();
    const platformId = String(BigInt(`0x${id.replace(/-/g, '').slice(-15)}`));
    await dataSource.query(
      `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
       VALUES ($1, $2, 'Race', $3, now())`,
      [id, platformId, PLATFORM_USER],
    );
    return id;
  }

  /** Another request's job, committed `running`. */
  async function otherJob(guildId: string): Promise<string> {
    const id = uuidv7();
    await dataSource.query(
      `INSERT INTO recovery.restore_jobs
         (id, guild_id, snapshot_id, requested_by_user, requested_by_platform_user_id, scope, status, preview_diff)
       VALUES ($1, $2, $3, $4, $5, '{roles}', 'running', '{}')`,
      [id, guildId, uuidv7(), uuidv7(), PLATFORM_USER],
    );
    return id;
  }

  const end = (jobId: string) =>
    dataSource.query(
      `UPDATE recovery.restore_jobs SET status = 'completed', completed_at = now() WHERE id = $1`,
      [jobId],
    );

  /** The other job's ending, begun in a transaction of its own and not committed yet. */
  async function endingInFlight(jobId: string): Promise<QueryRunner> {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query(
      `UPDATE recovery.restore_jobs SET status = 'completed', completed_at = now() WHERE id = $1`,
      [jobId],
    );
    return runner;
  }

  /** The start's insert is waiting for the other job's row: the moment both are in flight. */
  const insertWaiting = () =>
    waitFor('the start’s insert to wait for the other job', async () => {
      const [{ waiting }] = await dataSource.query<{ waiting: number }[]>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO recovery.restore_jobs%'`,
      );
      return waiting > 0;
    });

  const start = (guildId: string) =>
    sut.start(
      { kind: 'user', user_id: uuidv7(), platform_user_id: PLATFORM_USER, session_id: uuidv7() },
      guildId,
      {
        snapshot_id: uuidv7(),
        scope: ['roles'],
        approved_diff_hash: restoreDiffHash(DIFF),
        options: { create_pre_restore_snapshot: false },
      },
    );

  async function activeJobs(guildId: string): Promise<string[]> {
    const rows = await dataSource.query<{ id: string }[]>(
      `SELECT id FROM recovery.restore_jobs WHERE guild_id = $1 AND status IN ('pending', 'running')`,
      [guildId],
    );
    return rows.map((row) => row.id);
  }

  async function startedEvents(jobId: string): Promise<number> {
    const [{ count }] = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM recovery.outbox
        WHERE event_type = 'RestoreStarted' AND envelope->'payload'->>'restore_job_id' = $1`,
      [jobId],
    );
    return count;
  }

  it('answers 409 with the other job when it appears after the first check and ends right after the insert', async () => {
    const guildId = await guild();
    let other = '';
    whileComparing = async () => {
      other = await otherJob(guildId);
    };
    const insert = jobs.insertPending.bind(jobs);
    jest.spyOn(jobs, 'insertPending').mockImplementation(async (job) => {
      try {
        return await insert(job);
      } finally {
        await end(other);
      }
    });

    const answer = await start(guildId).catch((error: unknown) => error);

    expect(answer).toBeInstanceOf(DomainError);
    expect(answer).toMatchObject({
      code: 'ErrRestoreAlreadyInProgress',
      extensions: { existing_job: { id: other } },
    });
    // Nothing was started for a job that was never stored.
    expect(started).toEqual([]);
    expect(await activeJobs(guildId)).toEqual([]);
  });

  it('starts this job when the other one’s ending commits while the insert waits for it', async () => {
    const guildId = await guild();
    let ending: QueryRunner | undefined;
    whileComparing = async () => {
      ending = await endingInFlight(await otherJob(guildId));
    };
    const insert = jobs.insertPending.bind(jobs);
    jest.spyOn(jobs, 'insertPending').mockImplementation(async (job) => {
      const inserted = insert(job);
      await insertWaiting();
      await ending!.commitTransaction();
      await ending!.release();
      return inserted;
    });

    const answer = await start(guildId);

    expect(answer).toMatchObject({ job_id: answer.id, status: 'running' });
    expect(started.map((input) => input.jobId)).toEqual([answer.job_id]);
    expect(await activeJobs(guildId)).toEqual([answer.job_id]);
    expect(await startedEvents(answer.job_id)).toBe(1);
  });

  it('answers 409 with the other job when its ending rolls back while the insert waits for it', async () => {
    const guildId = await guild();
    let other = '';
    let ending: QueryRunner | undefined;
    whileComparing = async () => {
      other = await otherJob(guildId);
      ending = await endingInFlight(other);
    };
    const insert = jobs.insertPending.bind(jobs);
    jest.spyOn(jobs, 'insertPending').mockImplementation(async (job) => {
      const inserted = insert(job);
      await insertWaiting();
      await ending!.rollbackTransaction();
      await ending!.release();
      return inserted;
    });

    const answer = await start(guildId).catch((error: unknown) => error);

    expect(answer).toMatchObject({
      code: 'ErrRestoreAlreadyInProgress',
      extensions: { existing_job: { id: other, status: 'running' } },
    });
    expect(started).toEqual([]);
    expect(await activeJobs(guildId)).toEqual([other]);
  });
});
