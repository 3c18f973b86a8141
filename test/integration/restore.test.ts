import { ChatPlatformClient, type GuildState, LEAST_BOT_PERMISSIONS } from '@lib/chat-platform';
import type { DomainEvent } from '@lib/contracts';
import { DEFAULT_RATE_LIMITS } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { RecoveryStack } from '../support/recovery-stack';
import { ALL_SCOPES, RestoreHarness } from '../support/restore-harness';

type Body = Record<string, unknown>;
import { EXPRESSION_SCOPES, expressionScenario, expressionsRestored } from '../support/expression-raid';
import { expectMembersUndone, memberRaid, memberUpdates, SIX_SCOPES } from '../support/member-raid';
import { ADMIN, MEMBER, OWNER, raid, restorable } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

/** Preview, start, progress, cancel and the restore workflow on Temporal, against the fake platform. */
describe('restore', () => {
  const stack = new RecoveryStack({ worker: true });
  const harness = new RestoreHarness(stack);
  const { post, getJob, protectedGuild, preview, start, finished } = harness;
  let dataSource: DataSource;
  let platformUrl: string;
  let reader: ChatPlatformClient;

  beforeAll(async () => {
    await stack.start();
    await harness.open();
    ({ dataSource, reader } = harness);
    platformUrl = stack.platform.url;
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await harness.close();
  });

  /** docs/behaviour.md §4.1 rule 4, §7: 500, the platform named as the cause, and when to try again. */
  function expectPlatformOutage(answer: Awaited<ReturnType<typeof post>>) {
    expect(answer).toMatchObject({
      status: 500,
      body: {
        code: 'ErrGuildStateUnavailable',
        title: 'The chat platform is unavailable',
        detail: expect.stringContaining('try again in 30 seconds'),
        retry_after_seconds: 30,
      },
    });
    expect(answer.headers.get('retry-after')).toBe('30');
  }

  /** The events that ended a job (RestoreCompleted, RestoreFailed, RestoreCanceled). */
  async function endingEvents(jobId: string): Promise<DomainEvent[]> {
    const rows = await dataSource.query<{ envelope: DomainEvent }[]>(
      `SELECT envelope FROM recovery.outbox
        WHERE event_type <> 'RestoreStarted' AND envelope->'payload'->>'restore_job_id' = $1 ORDER BY id`,
      [jobId],
    );
    return rows.map((row) => row.envelope);
  }

  async function expectRestored(
    guildId: string,
    platformGuildId: string,
    payload: GuildState,
    scopes = ALL_SCOPES,
  ) {
    const { live, snapshot } = await harness.restoredState(guildId, platformGuildId, payload, scopes);
    expect(live).toEqual(snapshot);
  }

  describe('end to end', () => {
    it('previews a raid’s damage, restores it step by step, and the guild equals the snapshot', async () => {
      const { seeded, name, guildId, snapshotId, payload } = await protectedGuild();
      await raid(stack.platform, seeded);

      const previewed = await preview(snapshotId);
      expect(previewed.status).toBe(200);
      const diff = previewed.body;
      expect(diff.diff_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect((diff.roles_to_create as Body[]).map((r) => r.name)).toEqual(['Moderator']);
      expect(diff.roles_to_create).toEqual([
        expect.objectContaining({ name: 'Moderator', color: '#2ecc71' }),
      ]);
      expect((diff.roles_to_delete as Body[]).map((r) => r.name)).toEqual(['raider']);
      expect(diff.roles_to_update).toEqual([
        expect.objectContaining({
          current: expect.objectContaining({ name: 'pwned' }),
          target: expect.objectContaining({ name: 'Admin', color: '#e74c3c' }),
          changed_fields: expect.arrayContaining(['name', 'color', 'mentionable']),
        }),
      ]);
      expect((diff.channels_to_create as Body[]).map((c) => c.name).sort()).toEqual([
        'Staff',
        'mod-chat',
        'rules',
      ]);
      expect((diff.channels_to_delete as Body[]).map((c) => c.name)).toEqual(['spam']);
      expect(diff.guild_settings_diff).toMatchObject({
        name: { current: 'RAIDED', target: payload.guild.name },
        verification_level: { current: 0, target: 2 },
      });
      expect(typeof diff.estimated_duration).toBe('string');

      const started = await post('/api/v1/restore/start', {
        snapshot_id: snapshotId,
        scope: ALL_SCOPES,
        approved_diff_hash: diff.diff_hash,
        options: { create_pre_restore_snapshot: true },
      });
      expect(started.status).toBe(202);
      // docs/behaviour.md §4.2: the answer is `job_id`; the job's own fields come beside it.
      expect(started.body).toMatchObject({
        job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        id: started.body.job_id,
        status: 'running',
        engine_workflow_id: `restore-${String(started.body.job_id)}`,
      });

      const job = await finished(started.body.id as string);
      expect(job).toMatchObject({ status: 'completed', error_message: null });
      expect(job.result_summary).toMatchObject({
        roles_created: 1,
        roles_deleted: 1,
        channels_created: 3,
        channels_deleted: 1,
      });
      expect(job.pre_restore_snapshot_id).toEqual(expect.any(String));
      await expectRestored(guildId, seeded.guildId, payload);

      const events = await dataSource.query<{ event_type: string; envelope: DomainEvent }[]>(
        `SELECT event_type, envelope FROM recovery.outbox WHERE envelope->'payload'->>'restore_job_id' = $1 ORDER BY id`,
        [started.body.id],
      );
      expect(events.map((e) => e.event_type)).toEqual(['RestoreStarted', 'RestoreCompleted']);
      // Everything the notifier's DM needs: the recipient is the requester, the guild its registry name.
      expect(events[1].envelope.payload).toEqual({
        restore_job_id: started.body.id,
        snapshot_id: snapshotId,
        requested_by_user: job.requested_by_user,
        requested_by_platform_user_id: OWNER,
        guild_name: name,
        result_summary: job.result_summary,
        duration_ms: expect.any(Number),
        pre_restore_snapshot_id: job.pre_restore_snapshot_id,
        pre_restore_snapshot_requested: true,
      });
      const paused = await dataSource.query(`SELECT 1 FROM recovery.live_sync_pauses WHERE guild_id = $1`, [
        guildId,
      ]);
      expect(paused).toEqual([]);

      // Nothing is left to do: a new preview of the same snapshot is empty.
      const again = await preview(snapshotId);
      for (const list of [
        'roles_to_create',
        'roles_to_update',
        'roles_to_delete',
        'channels_to_create',
        'channels_to_update',
        'channels_to_delete',
        'overrides_to_apply',
        'overrides_to_remove',
      ]) {
        expect([list, again.body[list]]).toEqual([list, []]);
      }
      expect(again.body.guild_settings_diff).toEqual({});
    });

    it.each(ALL_SCOPES)('restores %s alone and leaves the rest as it is', async (scope) => {
      const { seeded, guildId, snapshotId, payload } = await protectedGuild();
      await raid(stack.platform, seeded);
      const before = await reader.getGuildState(seeded.guildId);
      const started = await start(snapshotId, [scope]);
      expect(started.status).toBe(202);
      expect(await finished(started.body.id as string)).toMatchObject({ status: 'completed' });
      const after = await reader.getGuildState(seeded.guildId);
      const others = ALL_SCOPES.filter(
        (other) => other !== scope && !(scope === 'permission_overrides' && other === 'channels'),
      );
      if (scope !== 'permission_overrides') await expectRestored(guildId, seeded.guildId, payload, [scope]);
      if (scope === 'guild_settings')
        expect(restorable(after, ['roles', 'channels'])).toEqual(restorable(before, ['roles', 'channels']));
      if (scope === 'roles')
        expect(restorable(after, ['channels', 'guild_settings'])).toEqual(
          restorable(before, ['channels', 'guild_settings']),
        );
      if (scope === 'channels')
        expect(restorable(after, ['roles', 'guild_settings'])).toEqual(
          restorable(before, ['roles', 'guild_settings']),
        );
      if (scope === 'permission_overrides') {
        // Overwrites of channels that still exist are back; deleted channels are not recreated.
        expect(after.channels.map((c) => c.id).sort()).toEqual(before.channels.map((c) => c.id).sort());
        const announcements = after.permission_overrides.filter(
          (o) => o.channel_id === seeded.channels.announcements,
        );
        expect(announcements).toEqual([]);
        expect(after.permission_overrides).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ channel_id: seeded.channels.Info, id: seeded.guildId }),
          ]),
        );
      }
      expect(others.length).toBeGreaterThan(0);
    });

    it('previews the overwrites that a channels-only restore recreates its channels with', async () => {
      const { seeded, snapshotId } = await protectedGuild();
      await raid(stack.platform, seeded);
      const previewed = await preview(snapshotId, ['channels']);
      expect(previewed.status).toBe(200);
      const created = (previewed.body.channels_to_create as Body[]).map((c) => c.name as string);
      expect([...created].sort()).toEqual(['Staff', 'mod-chat', 'rules']);
      const listed = previewed.body.overrides_to_apply as Body[];
      expect(listed.map((o) => o.channel_name)).toContain('Staff');
      // Moderator was deleted and roles are not in scope: its overwrites cannot come back.
      expect(previewed.body.skipped).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ scope: 'permission_overrides', name: 'Staff / Moderator' }),
        ]),
      );

      const started = await post('/api/v1/restore/start', {
        snapshot_id: snapshotId,
        scope: ['channels'],
        approved_diff_hash: previewed.body.diff_hash,
      });
      expect(await finished(started.body.job_id as string)).toMatchObject({ status: 'completed' });

      // What the preview listed is what the recreated channels carry, and nothing else.
      const live = await reader.getGuildState(seeded.guildId);
      const names = new Map(live.channels.map((c) => [c.id, c.name]));
      type Overwrite = { channel_name: unknown; type: unknown; id: unknown; allow: unknown; deny: unknown };
      const key = (o: Overwrite) =>
        `${String(o.channel_name)} ${String(o.type)} ${String(o.id)} +${String(o.allow)} -${String(o.deny)}`;
      const applied = live.permission_overrides
        .filter((o) => created.includes(names.get(o.channel_id)!))
        .map((o) => key({ ...o, channel_name: names.get(o.channel_id) }));
      expect(applied.sort()).toEqual(listed.map((o) => key(o as Overwrite)).sort());
    });
  });

  describe('rules and bad input', () => {
    it('answers bad bodies, unknown and foreign snapshots, and a plan without restore with problem bodies', async () => {
      const { snapshotId } = await protectedGuild();
      const hash = `sha256:${'a'.repeat(64)}`;
      // The snapshot is looked up (and its guild's MANAGE_GUILD checked) before the rest is
      // validated: a body that names no snapshot gets the answer of a missing one.
      for (const body of [{}, { snapshot_id: 'not-a-uuid', scope: ['roles'] }]) {
        const missing = await post('/api/v1/restore/preview', body);
        expect([JSON.stringify(body), missing.status, missing.body.code]).toEqual([
          JSON.stringify(body),
          404,
          'ErrSnapshotNotFound',
        ]);
      }
      for (const body of [
        { snapshot_id: snapshotId, scope: [] },
        { snapshot_id: snapshotId, scope: ['roles', 'roles'] },
        { snapshot_id: snapshotId, scope: ['members'] },
        { snapshot_id: snapshotId, scope: 'roles' },
      ]) {
        const refused = await post('/api/v1/restore/preview', body);
        expect([JSON.stringify(body), refused.status, refused.body.code]).toEqual([
          JSON.stringify(body),
          400,
          'ErrValidation',
        ]);
      }
      for (const body of [
        { snapshot_id: snapshotId, scope: ['roles'] },
        { snapshot_id: snapshotId, scope: ['roles'], approved_diff_hash: 'abc' },
        {
          snapshot_id: snapshotId,
          scope: ['roles'],
          approved_diff_hash: hash,
          options: { create_pre_restore_snapshot: 'yes' },
        },
      ]) {
        const refused = await post('/api/v1/restore/start', body);
        expect([JSON.stringify(body), refused.status, refused.body.code]).toEqual([
          JSON.stringify(body),
          400,
          'ErrValidation',
        ]);
      }
      // Access comes first: an id that names no job is not found, like a random one.
      expect(await getJob('not-a-uuid')).toMatchObject({
        status: 404,
        body: { code: 'ErrRestoreJobNotFound' },
      });
      expect(await getJob(uuidv7())).toMatchObject({ status: 404, body: { code: 'ErrRestoreJobNotFound' } });
      const unknown = await preview(uuidv7(), ['roles']);
      expect(unknown).toMatchObject({ status: 404, body: { code: 'ErrSnapshotNotFound' } });
      // A member without MANAGE_GUILD learns nothing about the snapshot.
      const foreign = await preview(snapshotId, ['roles'], MEMBER);
      expect(foreign).toMatchObject({ status: 404, body: { code: 'ErrSnapshotNotFound' } });
      expect((await preview(snapshotId, ['roles'], ADMIN)).status).toBe(200);

      const free = await protectedGuild({ plan: null });
      const refused = await preview(free.snapshotId, ['roles']);
      expect(refused).toMatchObject({
        status: 403,
        body: { code: 'ErrPermissionDenied', required_feature: 'RECOVERY_RESTORE' },
      });
      // Members' roles and bans are restores too: FREE is told which plan has them.
      const freeMembers = await preview(free.snapshotId, ['member_roles', 'bans']);
      expect(freeMembers).toMatchObject({
        status: 403,
        body: { code: 'ErrPermissionDenied', plan_code: 'FREE', required_plan: 'PRO' },
      });
      expect(freeMembers.body.detail).toContain('Pro');
      const startFree = await post('/api/v1/restore/start', {
        snapshot_id: free.snapshotId,
        scope: ['member_roles'],
        approved_diff_hash: hash,
      });
      expect(startFree).toMatchObject({ status: 403, body: { code: 'ErrPermissionDenied' } });
      const jobs = await dataSource.query(`SELECT 1 FROM recovery.restore_jobs WHERE guild_id = $1`, [
        free.guildId,
      ]);
      expect(jobs).toEqual([]);
    });

    it('refuses a snapshot of an unsupported payload version, and says when the live guild cannot be read', async () => {
      const { seeded, snapshotId } = await protectedGuild();
      stack.platform.injectFailure({ path: `/guilds/${seeded.guildId}/channels`, status: 502, times: 50 });
      const unreadable = await preview(snapshotId, ['channels']);
      expectPlatformOutage(unreadable);
      stack.platform.clearFailures();
      await dataSource.query(
        `UPDATE recovery.snapshots SET payload = jsonb_set(payload, '{version}', '99') WHERE id = $1`,
        [snapshotId],
      );
      const unsupported = await preview(snapshotId, ['roles']);
      expect(unsupported).toMatchObject({
        status: 422,
        body: { code: 'ErrSnapshotUnsupported', version: 99 },
      });
    });

    it('answers a preview or start during a platform outage with the spec’s 500, saying when to retry', async () => {
      const { guildId, snapshotId } = await protectedGuild();
      const previewed = await preview(snapshotId);
      // The whole platform is down. ADMIN's MANAGE_GUILD is not cached yet: that read fails first.
      stack.platform.injectFailure({ path: /^\//, status: 503, times: 10_000 });
      try {
        expectPlatformOutage(await preview(snapshotId, ALL_SCOPES, ADMIN));
        // OWNER's is cached from the preview above: the guild state read fails.
        expectPlatformOutage(await preview(snapshotId));
        expectPlatformOutage(
          await post('/api/v1/restore/start', {
            snapshot_id: snapshotId,
            scope: ALL_SCOPES,
            approved_diff_hash: previewed.body.diff_hash,
          }),
        );
      } finally {
        stack.platform.clearFailures();
      }
      const jobs = await dataSource.query(`SELECT 1 FROM recovery.restore_jobs WHERE guild_id = $1`, [
        guildId,
      ]);
      expect(jobs).toEqual([]);
      expect((await preview(snapshotId, ALL_SCOPES, ADMIN)).status).toBe(200);
    });

    it('refuses a start whose approved diff no longer matches the guild, and writes nothing', async () => {
      const { seeded, guildId, snapshotId } = await protectedGuild();
      await raid(stack.platform, seeded);
      const previewed = await preview(snapshotId);
      stack.platform.mutate(seeded.guildId, (guild) => {
        guild.name = 'Renamed after the preview';
      });
      const refused = await post('/api/v1/restore/start', {
        snapshot_id: snapshotId,
        scope: ALL_SCOPES,
        approved_diff_hash: previewed.body.diff_hash,
      });
      expect(refused).toMatchObject({ status: 409, body: { code: 'ErrDiffChanged' } });
      const jobs = await dataSource.query(`SELECT 1 FROM recovery.restore_jobs WHERE guild_id = $1`, [
        guildId,
      ]);
      expect(jobs).toEqual([]);
    });

    it('lets exactly one of concurrent starts through; the others get the existing job', async () => {
      const { seeded, guildId, snapshotId } = await protectedGuild();
      await raid(stack.platform, seeded);
      const previewed = await preview(snapshotId);
      const body = {
        snapshot_id: snapshotId,
        scope: ALL_SCOPES,
        approved_diff_hash: previewed.body.diff_hash,
      };
      const answers = await Promise.all(Array.from({ length: 6 }, () => post('/api/v1/restore/start', body)));
      const accepted = answers.filter((answer) => answer.status === 202);
      const refused = answers.filter((answer) => answer.status === 409);
      expect([accepted.length, refused.length]).toEqual([1, 5]);
      for (const answer of refused) {
        expect(answer.body).toMatchObject({
          code: 'ErrRestoreAlreadyInProgress',
          existing_job: { id: accepted[0].body.id },
        });
      }
      const [{ count }] = await dataSource.query(
        `SELECT count(*)::int AS count FROM recovery.restore_jobs WHERE guild_id = $1`,
        [guildId],
      );
      expect(count).toBe(1);
      expect(await finished(accepted[0].body.id as string)).toMatchObject({ status: 'completed' });
    });
  });

  describe('while it runs', () => {
    afterEach(() => stack.platform.setRateLimits(DEFAULT_RATE_LIMITS));

    /** A raid on many roles, restored under a tight rate limit so the run takes seconds. */
    async function slowRestore(scope = ALL_SCOPES) {
      const scenario = await protectedGuild({ extraRoles: 12 });
      await raid(stack.platform, scenario.seeded);
      const raider = new ChatPlatformClient({ apiBaseUrl: `${platformUrl}/api`, botToken: 'fake-bot-token' });
      for (let i = 0; i < 12; i++)
        await raider.deleteRole(scenario.seeded.guildId, scenario.seeded.roles[`extra-${i}`]);
      const started = await start(scenario.snapshotId, scope);
      expect(started.status).toBe(202);
      stack.platform.setRateLimits({ perRoute: { limit: 1, windowMs: 700 } });
      return { ...scenario, jobId: started.body.id as string };
    }

    async function runningStep(jobId: string, step: string): Promise<Body> {
      return waitFor(
        `${step} to run`,
        async () => {
          const job = await getJob(jobId);
          const progress = job.body.progress as { current_step: string } | undefined;
          return progress?.current_step === step ? job.body : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    }

    it('shows progress and cancels: the running step finishes, later steps are skipped, live sync resumes', async () => {
      const { seeded, name, guildId, jobId } = await slowRestore();
      const running = await runningStep(jobId, 'CreateOrUpdateRoles');
      expect(running.progress).toMatchObject({
        done: expect.any(Number),
        total: expect.any(Number),
        steps: expect.arrayContaining([
          expect.objectContaining({ name: 'DeleteRemovedRoles', status: 'done', label: 'Delete roles' }),
          expect.objectContaining({ name: 'ValidateSnapshot', label: 'Check the snapshot' }),
          expect.objectContaining({ name: 'CreateOrUpdateRoles', label: 'Create and update roles' }),
        ]),
      });
      const canceled = await post(`/api/v1/restore/${jobId}/cancel`, {});
      expect(canceled.status).toBe(202);
      expect(canceled.body.cancel_requested_at).toEqual(expect.any(String));
      const job = await finished(jobId);
      expect(job).toMatchObject({ status: 'canceled', error_message: null });
      // Channels are made beside the roles (each as soon as the roles it names exist); the settings
      // come after both and were skipped: the raid's name stays.
      const live = await reader.getGuildState(seeded.guildId);
      expect(live.guild.name).toBe('RAIDED');
      const paused = await dataSource.query(`SELECT 1 FROM recovery.live_sync_pauses WHERE guild_id = $1`, [
        guildId,
      ]);
      expect(paused).toEqual([]);
      // A cancel is not a failure: RestoreCanceled, with why.
      const events = await endingEvents(jobId);
      expect(events.map((event) => event.type)).toEqual(['RestoreCanceled']);
      expect(events[0].payload).toEqual({
        restore_job_id: jobId,
        snapshot_id: job.snapshot_id,
        requested_by_user: job.requested_by_user,
        requested_by_platform_user_id: OWNER,
        guild_name: name,
        reason: 'user',
        pre_restore_snapshot_id: null,
        pre_restore_snapshot_requested: false,
      });
      expect((await post(`/api/v1/restore/${jobId}/cancel`, {})).body.code).toBe('ErrRestoreNotActive');
    });

    it('cancels with "guild deleted" when the guild disappears from the platform mid-run', async () => {
      const { seeded, name, jobId } = await slowRestore();
      await runningStep(jobId, 'CreateOrUpdateRoles');
      stack.platform.deleteGuild(seeded.guildId);
      expect(await finished(jobId)).toMatchObject({ status: 'canceled', error_message: 'guild deleted' });
      // The guild is gone from the platform; the DM still names it, from the registry.
      const events = await endingEvents(jobId);
      expect(events.map((event) => event.type)).toEqual(['RestoreCanceled']);
      expect(events[0].payload).toMatchObject({
        reason: 'guild_deleted',
        requested_by_platform_user_id: OWNER,
        guild_name: name,
      });
    });

    it('completes through a storm of 429s', async () => {
      const { seeded, guildId, snapshotId, payload } = await protectedGuild();
      await raid(stack.platform, seeded);
      stack.platform.injectFailure({
        path: /^\/(guilds|channels)\//,
        status: 429,
        times: 25,
        retryAfterSeconds: 0.1,
      });
      const started = await start(snapshotId);
      expect(await finished(started.body.id as string)).toMatchObject({ status: 'completed' });
      expect(stack.platform.requestLog().filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(25);
      await expectRestored(guildId, seeded.guildId, payload);
    });

    it('fails the step at once, without retrying, when the platform refuses a body (400 50035)', async () => {
      const { seeded, guildId, snapshotId } = await protectedGuild();
      await raid(stack.platform, seeded);
      const rolesRoute = `/guilds/${seeded.guildId}/roles`;
      stack.platform.injectFailure({
        method: 'POST',
        path: rolesRoute,
        status: 400,
        code: 50035,
        message: 'Invalid Form Body',
      });
      const started = await start(snapshotId, ['roles']);
      const job = await finished(started.body.id as string);
      expect(job).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/400/) });
      // The restore's own requests, by the reason they carry (a time would also take in the raid's
      // last ones, answered in the same millisecond on a fast machine).
      const creates = stack.platform
        .requestLog()
        .filter(
          (r) =>
            r.auditLogReason === `Restore ${String(job.id)}` && r.method === 'POST' && r.path === rolesRoute,
        );
      expect(creates.map((r) => r.status)).toEqual([400]);
      const [failed] = await endingEvents(job.id as string);
      expect(failed).toMatchObject({
        type: 'RestoreFailed',
        payload: { error_code: 'InvalidRequest', pre_restore_snapshot_id: null },
      });
      const paused = await dataSource.query(`SELECT 1 FROM recovery.live_sync_pauses WHERE guild_id = $1`, [
        guildId,
      ]);
      expect(paused).toEqual([]);
    });

    it('fails fast, without retrying, when the bot lacks a permission', async () => {
      const { seeded, guildId, snapshotId } = await protectedGuild();
      await raid(stack.platform, seeded);
      const rolesRoute = new RegExp(`^/guilds/${seeded.guildId}/roles/`);
      stack.platform.injectFailure({
        method: 'DELETE',
        path: rolesRoute,
        status: 403,
        code: 50013,
        message: 'Missing Permissions',
      });
      const started = await start(snapshotId, ['roles']);
      const job = await finished(started.body.id as string);
      expect(job).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/permission/i) });
      const deletes = stack.platform
        .requestLog()
        .filter(
          (r) =>
            r.auditLogReason === `Restore ${String(job.id)}` &&
            r.method === 'DELETE' &&
            rolesRoute.test(r.path),
        );
      expect(deletes.map((r) => r.status)).toEqual([403]);
      const paused = await dataSource.query(`SELECT 1 FROM recovery.live_sync_pauses WHERE guild_id = $1`, [
        guildId,
      ]);
      expect(paused).toEqual([]);
    });

    it('survives the worker being killed mid-restore: a new one finishes the job', async () => {
      const { seeded, guildId, payload, jobId } = await slowRestore();
      await runningStep(jobId, 'CreateOrUpdateRoles');
      await stack.restartRecovery('SIGKILL');
      stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);
      expect(await finished(jobId, 90_000)).toMatchObject({ status: 'completed' });
      await expectRestored(guildId, seeded.guildId, payload);
    }, 120_000);
  });

  describe('what a bot with the least permissions cannot do', () => {
    it('lists it in the preview with why, skips exactly it, and restores everything else', async () => {
      const owner = new ChatPlatformClient({
        apiBaseUrl: `${platformUrl}/api`,
        botToken: 'owner-of-the-guild',
      });
      let top = '';
      const { seeded, guildId, snapshotId, payload } = await protectedGuild({
        // The owner unticked ADMINISTRATOR when inviting the bot.
        bot: { permissions: LEAST_BOT_PERMISSIONS },
        beforeSnapshot: async (guild) => {
          stack.platform.registerBotToken('owner-of-the-guild', guild.ownerId);
          // Only an administrator (or a bot allowed it in that channel) may put MANAGE_ROLES in an
          // overwrite; and a role above the bot's highest is out of its reach.
          await owner.putPermissionOverride({
            channel_id: guild.channels.general,
            id: guild.roles.Member,
            type: 'role',
            allow: String(P.ManageRoles),
            deny: '0',
          });
          top = (await owner.createRole(guild.guildId, { name: 'Top', color: 0xffd700 })).id;
          const roles = await owner.getRoles(guild.guildId);
          await owner.setRolePositions(guild.guildId, [{ id: top, position: roles.length - 1 }]);
        },
      });
      const general = seeded.channels.general;
      await raid(stack.platform, seeded);
      await owner.deletePermissionOverride(general, seeded.roles.Member);
      await owner.updateRole(seeded.guildId, top, { name: 'pwned-top', color: 0 });

      const previewed = await preview(snapshotId);
      expect(previewed.status).toBe(200);
      expect(previewed.body.skipped).toHaveLength(2);
      expect(previewed.body.skipped).toEqual(
        expect.arrayContaining([
          { scope: 'roles', id: top, name: 'Top', reason: 'above the bot’s highest role' },
          {
            scope: 'permission_overrides',
            id: `${general}/${seeded.roles.Member}`,
            name: 'general / Member',
            reason: expect.stringContaining('Manage Permissions'),
          },
        ]),
      );

      const started = await start(snapshotId);
      const job = await finished(started.body.id as string);
      expect(job).toMatchObject({ status: 'completed', error_message: null, result_summary: { skipped: 2 } });
      // The restore never attempted what it skipped: the platform refused it nothing.
      const refused = stack.platform
        .requestLog()
        .filter((r) => r.auditLogReason === `Restore ${String(job.id)}` && r.status >= 400);
      expect(refused).toEqual([]);

      const { live, snapshot } = await harness.restoredState(guildId, seeded.guildId, payload, ALL_SCOPES);
      const skippedOverride = (o: { channel_id: string; id: string }) =>
        o.channel_id === general && o.id === seeded.roles.Member;
      const others = (state: typeof live) => ({
        ...state,
        roles: state.roles?.filter((role) => role.id !== top),
        overrides: state.overrides?.filter((o) => !skippedOverride(o)),
      });
      expect(others(live)).toEqual(others(snapshot));
      expect(live.roles?.find((role) => role.id === top)).toMatchObject({ name: 'pwned-top' });
      expect(live.overrides?.some(skippedOverride)).toBe(false);
    });
  });

  describe('members’ roles and bans', () => {
    afterEach(() => stack.platform.setRateLimits(DEFAULT_RATE_LIMITS));

    it('undoes a raid on members in one restore: roles given back, the raid’s 50 bans lifted, nobody else touched', async () => {
      const scenario = await memberRaid(harness, stack.platform);
      const previewed = await preview(scenario.snapshotId, SIX_SCOPES);
      expect(previewed.status).toBe(200);
      expect(previewed.body).toMatchObject({ members_to_update: 32, members_absent: 50 });
      expect(previewed.body.member_roles_to_restore).toEqual([
        expect.objectContaining({ role_name: 'Moderator', members: 17 }),
        expect.objectContaining({ role_name: 'Member', members: 20 }),
      ]);
      expect(previewed.body.bans_to_lift).toHaveLength(50);

      const started = await start(scenario.snapshotId, SIX_SCOPES);
      expect(started.status).toBe(202);
      const job = await finished(started.body.id as string);

      expect(job).toMatchObject({
        status: 'completed',
        result_summary: {
          members_updated: 32,
          member_roles_restored: 37,
          members_absent: 50,
          bans_lifted: 50,
        },
      });
      await expectRestored(scenario.guildId, scenario.seeded.guildId, scenario.payload);
      await expectMembersUndone(harness, stack.platform, scenario, job as never);
    }, 90_000);

    it('survives the worker being killed during the member step: no member is updated twice', async () => {
      const scenario = await memberRaid(harness, stack.platform);
      const started = await start(scenario.snapshotId, SIX_SCOPES);
      expect(started.status).toBe(202);
      stack.platform.setRateLimits({ perRoute: { limit: 1, windowMs: 300 } });
      const since = Date.parse(started.body.created_at as string);
      await waitFor(
        'a few member updates',
        () => memberUpdates(stack.platform, scenario.seeded.guildId, since).length >= 3,
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      await stack.restartRecovery('SIGKILL');
      stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);

      const job = await finished(started.body.id as string, 90_000);
      expect(job).toMatchObject({ status: 'completed' });
      await expectRestored(scenario.guildId, scenario.seeded.guildId, scenario.payload);
      await expectMembersUndone(harness, stack.platform, scenario, job as never);
    }, 150_000);
  });

  describe('everything a guild is: emojis, stickers, images, a forum, AutoMod, webhooks, onboarding', () => {
    it('undoes a raid on all of it by one restore, a worker killed mid-step included, none made twice', async () => {
      const { seeded, guildId, snapshotId } = await expressionScenario(harness, reader);
      const started = await start(snapshotId, EXPRESSION_SCOPES);
      expect(started.status).toBe(202);
      const jobId = started.body.id as string;
      stack.platform.setRateLimits({ perRoute: { limit: 1, windowMs: 700 } });
      const emojiPosts = () =>
        stack.platform
          .requestLog()
          .filter(
            (r) => r.auditLogReason === `Restore ${jobId}` && r.method === 'POST' && /\/emojis$/.test(r.path),
          );
      await waitFor('an emoji made', () => emojiPosts().some((r) => r.status === 201 || r.status === 200), {
        timeoutMs: 60_000,
        intervalMs: 50,
      });
      await stack.restartRecovery('SIGKILL');
      stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);

      const job = await finished(jobId, 90_000);
      expect(job).toMatchObject({ status: 'completed' });
      const { live, snapshot } = await expressionsRestored(
        harness,
        dataSource,
        guildId,
        seeded.guildId,
        snapshotId,
      );
      expect(live).toEqual(snapshot);
      // Three emojis were missing; each was uploaded once (one the killed worker made is taken over).
      expect(emojiPosts().filter((r) => r.status < 300)).toHaveLength(3);
    }, 150_000);
  });
});
