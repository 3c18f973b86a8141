import { OutboxWriter } from '@lib/outbox';
import { register } from 'prom-client';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { RecoveryEvents } from '../../apps/recovery/src/recovery-events';
import { RestoreJobsRepository } from '../../apps/recovery/src/restore/restore-jobs.repository';
import { openDataSource } from '../support/database';

const PLATFORM_USER = '200000000000000001';

/** A restore's end is counted in `restore_jobs_ended_total` once it is committed, never before. */
describe('counting a restore’s end', () => {
  let dataSource: DataSource;
  const events = new RecoveryEvents(new OutboxWriter('recovery', 'recovery'));

  beforeAll(async () => {
    dataSource = await openDataSource();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  afterEach(() => jest.restoreAllMocks());

  /** A running job of a guild of its own. */
  async function runningJob(): Promise<string> {
    const guildId = uuidv7();
    const platformId = String(BigInt(`0x${guildId.replace(/-/g, '').slice(-15)}`));
    await dataSource.query(
      `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
       VALUES ($1, $2, 'Counted', $3, now())`,
      [guildId, platformId, PLATFORM_USER],
    );
    const jobId = uuidv7();
    await dataSource.query(
      `INSERT INTO recovery.restore_jobs
         (id, guild_id, snapshot_id, requested_by_user, requested_by_platform_user_id, scope, status, preview_diff)
       VALUES ($1, $2, $3, $4, $5, '{roles}', 'running', '{}')`,
      [jobId, guildId, uuidv7(), uuidv7(), PLATFORM_USER],
    );
    return jobId;
  }

  async function endedCount(status: string, code: string): Promise<number> {
    const metric = await register.getSingleMetric('restore_jobs_ended_total')!.get();
    return metric.values.find((v) => v.labels.status === status && v.labels.code === code)?.value ?? 0;
  }

  const status = async (jobId: string) =>
    (
      await dataSource.query<{ status: string }[]>(`SELECT status FROM recovery.restore_jobs WHERE id = $1`, [
        jobId,
      ])
    )[0].status;

  it('does not count an end whose transaction rolls back, and counts it once it commits', async () => {
    const jobs = new RestoreJobsRepository(dataSource, events);
    const jobId = await runningJob();
    const failure = { jobId, status: 'failed' as const, code: 'EndCountCheck', message: 'outage' };
    const before = await endedCount('failed', 'EndCountCheck');

    const refused = new Error('the outbox refused the event');
    jest.spyOn(events, 'restoreEndedUnsuccessfully').mockRejectedValueOnce(refused);
    await expect(jobs.endUnsuccessfully(failure)).rejects.toBe(refused);
    expect(await status(jobId)).toBe('running');
    expect(await endedCount('failed', 'EndCountCheck')).toBe(before);

    await expect(jobs.endUnsuccessfully(failure)).resolves.toBe(true);
    expect(await status(jobId)).toBe('failed');
    expect(await endedCount('failed', 'EndCountCheck')).toBe(before + 1);
    // Ended already: a second end changes nothing and is not counted.
    await expect(jobs.endUnsuccessfully(failure)).resolves.toBe(false);
    expect(await endedCount('failed', 'EndCountCheck')).toBe(before + 1);
  });
});
