import { ChatPlatformClient, type GuildState } from '@lib/chat-platform';
import type { DomainEvent } from '@lib/contracts';
import { DEFAULT_RATE_LIMITS } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { RecoveryStack } from '../support/recovery-stack';
import { ALL_SCOPES, RestoreHarness } from '../support/restore-harness';
import { PostgresImageStore } from '../../apps/recovery/src/snapshots/images/postgres-image-store.repository';
import { readSnapshotExport } from '../../apps/recovery/src/snapshots/snapshot-export';
import {
  readSnapshotPayload,
  snapshotImageDigests,
} from '../../apps/recovery/src/snapshots/snapshot-payload';
import {
  EXPRESSION_SCOPES,
  expressionScenario,
  expressionsRestored,
  RAIDER_PNG,
  uniquePng,
  withExpressions,
  withOwnImages,
} from '../support/expression-raid';
import { expectMembersUndone, memberRaid, SIX_SCOPES } from '../support/member-raid';
import { ADMIN, idMap, MEMBER, OWNER, raid } from '../support/restore-scenario';
import { WELCOME_FLOW_SCOPES, welcomeFlowRestored, welcomeFlowScenario } from '../support/welcome-flow-raid';
import { waitFor } from '../support/wait';

type Body = Record<string, unknown>;
const RAIDER_TOKEN = 'raider-bot-token';
const STOPPED_MESSAGE =
  'The service stopped while this restore was running; the guild may be partly restored. Preview it again and start a new restore.';

/**
 * Standalone mode's workflow engine: recovery with WORKFLOW_ENGINE=in-process and no Temporal at
 * all runs restores itself, with the progress, cancel and endings they have on Temporal, and
 * fails at its next start a restore its predecessor was killed in the middle of. AntiNuke runs in
 * the process too. Licences are stored as licensing stores them, so the suite needs no billing.
 */
describe('restore in process', () => {
  const stack = new RecoveryStack({
    worker: true,
    liveSync: true,
    env: { WORKFLOW_ENGINE: 'in-process', TEMPORAL_ADDRESS: undefined },
  });
  /** The licence as licensing keeps it: this suite runs without billing or the event transport. */
  const harness = new RestoreHarness(stack, async (guildId, plan) => {
    await harness.dataSource.query(
      `INSERT INTO licensing.licenses (id, guild_id, plan_id, expires_at, last_event_at, last_event_id)
       SELECT $1, $2, id, now() + interval '30 days', now(), $3 FROM licensing.plans WHERE code = $4`,
      [uuidv7(), guildId, uuidv7(), plan],
    );
  });
  let dataSource: DataSource;
  let platformUrl: string;
  /** The bot's own client: reads the guild, and does the raid's part the admin may not. */
  let reader: ChatPlatformClient;
  let raider: ChatPlatformClient;

  beforeAll(async () => {
    await stack.start();
    await harness.open();
    ({ dataSource, reader } = harness);
    platformUrl = stack.platform.url;
    // The compromised admin's account, acting through the API with a token of its own.
    stack.platform.registerBotToken(RAIDER_TOKEN, ADMIN, 'admin');
    raider = new ChatPlatformClient({ apiBaseUrl: `${platformUrl}/api`, botToken: RAIDER_TOKEN });
    await onTheGateway();
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await harness.close();
  });

  afterEach(() => stack.platform.setRateLimits(DEFAULT_RATE_LIMITS));

  const owner = () => stack.user(OWNER);
  const get = (path: string) => stack.call(stack.recovery, 'GET', path, owner());
  const { post, getJob, protectedGuild, finished } = harness;
  const start = (snapshotId: string, options: Body = {}) => harness.start(snapshotId, ALL_SCOPES, options);

  function onTheGateway() {
    return stack.onTheGateway();
  }

  async function expectRestored(guildId: string, platformGuildId: string, payload: GuildState) {
    const { live, snapshot } = await harness.restoredState(guildId, platformGuildId, payload);
    expect(live).toEqual(snapshot);
  }

  /** A raid on many roles, restored under a tight rate limit so the run takes seconds. */
  async function slowRestore(options: Body = {}) {
    const scenario = await protectedGuild({ extraRoles: 12 });
    await raid(stack.platform, scenario.seeded);
    for (let i = 0; i < 12; i++)
      await reader.deleteRole(scenario.seeded.guildId, scenario.seeded.roles[`extra-${i}`]);
    const started = await start(scenario.snapshotId, options);
    expect(started.status).toBe(202);
    stack.platform.setRateLimits({ perRoute: { limit: 1, windowMs: 700 } });
    return { ...scenario, jobId: started.body.id as string, started: started.body };
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

  async function restoreEvents(jobId: string) {
    return dataSource.query<{ event_type: string; envelope: DomainEvent }[]>(
      `SELECT event_type, envelope FROM recovery.outbox WHERE envelope->'payload'->>'restore_job_id' = $1 ORDER BY id`,
      [jobId],
    );
  }

  async function pausedGuild(guildId: string): Promise<boolean> {
    const rows = await dataSource.query(`SELECT 1 FROM recovery.live_sync_pauses WHERE guild_id = $1`, [
      guildId,
    ]);
    return rows.length > 0;
  }

  it('runs without Temporal: ready, and no worker trying to reach it', () => {
    expect(stack.recovery.output()).not.toMatch(/recovery worker could not start/);
  });

  it('restores a raid end to end, with progress while it runs, and the guild equals the snapshot', async () => {
    const { seeded, guildId, payload, jobId, started } = await slowRestore({
      create_pre_restore_snapshot: true,
    });
    expect(started).toMatchObject({ status: 'running', engine_workflow_id: `in-process-restore-${jobId}` });

    const running = await runningStep(jobId, 'CreateOrUpdateRoles');
    expect(running.progress).toMatchObject({
      done: expect.any(Number),
      total: expect.any(Number),
      steps: expect.arrayContaining([
        expect.objectContaining({ name: 'ValidateSnapshot', status: 'done' }),
        expect.objectContaining({ name: 'DeleteRemovedRoles', status: 'done' }),
        expect.objectContaining({ name: 'CreateOrUpdateRoles', status: 'running' }),
        // Channels are recreated beside the roles (each waiting for the roles it names); the
        // settings come after both.
        expect.objectContaining({ name: 'CreateOrUpdateChannels', status: 'running' }),
        expect.objectContaining({ name: 'UpdateGuildSettings', status: 'pending' }),
      ]),
    });
    expect(await pausedGuild(guildId)).toBe(true);
    stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);

    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    expect(job.progress).toBeUndefined();
    expect(job.result_summary).toMatchObject({ roles_created: 13, roles_deleted: 1, channels_created: 3 });
    expect(job.pre_restore_snapshot_id).toEqual(expect.any(String));
    await expectRestored(guildId, seeded.guildId, payload);

    const events = await restoreEvents(jobId);
    expect(events.map((event) => event.event_type)).toEqual(['RestoreStarted', 'RestoreCompleted']);
    expect(events[1].envelope.payload).toMatchObject({
      restore_job_id: jobId,
      requested_by_platform_user_id: OWNER,
      result_summary: job.result_summary,
      pre_restore_snapshot_id: job.pre_restore_snapshot_id,
    });
    expect(await pausedGuild(guildId)).toBe(false);
  });

  describe("a live channel's overwrite changes", () => {
    /** Staff opened to everyone and the Moderator's overwrite dropped: two changes on one live channel. */
    async function raidStaff(seeded: {
      guildId: string;
      channels: Record<string, string>;
      roles: Record<string, string>;
    }) {
      const staff = seeded.channels.Staff;
      await raider.putPermissionOverride({
        channel_id: staff,
        id: seeded.guildId,
        type: 'role',
        allow: String(P.ViewChannel),
        deny: '0',
      });
      await raider.deletePermissionOverride(staff, seeded.roles.Moderator);
      return staff;
    }

    function callsOn(channelId: string, since: number) {
      const log = stack.platform.requestLog().slice(since);
      return {
        lists: log
          .filter((r) => r.method === 'PATCH' && r.path === `/channels/${channelId}`)
          .map((r) => r.status),
        puts: log.filter(
          (r) => r.method === 'PUT' && r.path.startsWith(`/channels/${channelId}/permissions/`),
        ).length,
      };
    }

    it("go in one call that sets the channel's whole list", async () => {
      const { seeded, guildId, payload, snapshotId } = await protectedGuild();
      const staff = await raidStaff(seeded);
      const since = stack.platform.requestLog().length;
      const job = await finished((await start(snapshotId)).body.id as string);
      expect(job.status).toBe('completed');
      expect(callsOn(staff, since)).toEqual({ lists: [200], puts: 0 });
      await expectRestored(guildId, seeded.guildId, payload);
    });

    it('go in one call too when a member who left keeps an overwrite: the platform accepts it', async () => {
      const { seeded, guildId, payload, snapshotId } = await protectedGuild();
      const staff = await raidStaff(seeded);
      // The member leaves; the platform keeps their overwrite on Staff, and accepts it in a list.
      stack.platform.mutate(seeded.guildId, (guild) => {
        guild.members = guild.members.filter((member) => member.user_id !== MEMBER);
      });
      const since = stack.platform.requestLog().length;
      const job = await finished((await start(snapshotId)).body.id as string);
      expect(job.status).toBe('completed');
      expect(callsOn(staff, since)).toEqual({ lists: [200], puts: 0 });
      await expectRestored(guildId, seeded.guildId, payload);
    });
  });

  it('cancels: the running step finishes, later steps are skipped, live sync resumes', async () => {
    const { seeded, guildId, jobId } = await slowRestore();
    await runningStep(jobId, 'CreateOrUpdateRoles');
    const canceled = await post(`/api/v1/restore/${jobId}/cancel`, {});
    expect(canceled.status).toBe(202);
    expect(canceled.body.cancel_requested_at).toEqual(expect.any(String));

    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'canceled', error_message: null });
    const live = await reader.getGuildState(seeded.guildId);
    // The roles were being created and got done. Channels are made beside the roles (each as soon
    // as the roles it names exist), so some may be back; the settings come after both and were
    // skipped: the raid's name stays.
    expect(live.roles.map((role) => role.name)).toEqual(expect.arrayContaining(['Moderator', 'extra-11']));
    expect(live.guild.name).toBe('RAIDED');
    const events = await restoreEvents(jobId);
    expect(events.map((event) => event.event_type)).toEqual(['RestoreStarted', 'RestoreCanceled']);
    expect(events[1].envelope.payload).toMatchObject({ reason: 'user', pre_restore_snapshot_id: null });
    expect(await pausedGuild(guildId)).toBe(false);
    expect((await post(`/api/v1/restore/${jobId}/cancel`, {})).body.code).toBe('ErrRestoreNotActive');
  });

  it('fails fast, without retrying, when the bot lacks a permission', async () => {
    const { seeded, snapshotId } = await protectedGuild();
    await raid(stack.platform, seeded);
    const rolesRoute = new RegExp(`^/guilds/${seeded.guildId}/roles/`);
    stack.platform.injectFailure({
      method: 'DELETE',
      path: rolesRoute,
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    const started = await start(snapshotId);
    const job = await finished(started.body.id as string);
    expect(job).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/permission/i) });
    // The restore's own requests, by the reason they carry.
    const deletes = stack.platform
      .requestLog()
      .filter(
        (request) =>
          request.auditLogReason === `Restore ${String(job.id)}` &&
          request.method === 'DELETE' &&
          rolesRoute.test(request.path),
      );
    expect(deletes.map((request) => request.status)).toEqual([403]);
  });

  it('fails the step at once, without retrying, when the platform refuses a body (400 50035)', async () => {
    const { seeded, snapshotId } = await protectedGuild();
    await raid(stack.platform, seeded);
    const rolesRoute = `/guilds/${seeded.guildId}/roles`;
    stack.platform.injectFailure({
      method: 'POST',
      path: rolesRoute,
      status: 400,
      code: 50035,
      message: 'Invalid Form Body',
    });
    const job = await finished((await start(snapshotId)).body.id as string);
    expect(job).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/400/) });
    const creates = stack.platform
      .requestLog()
      .filter(
        (request) =>
          request.auditLogReason === `Restore ${String(job.id)}` &&
          request.method === 'POST' &&
          request.path === rolesRoute,
      );
    expect(creates.map((request) => request.status)).toEqual([400]);
  });

  it('restores a snapshot of a boosted guild into one without boosts: clamped, noted, completed', async () => {
    const { seeded, snapshotId } = await protectedGuild({
      // Seeded boosted rather than boosted through the API: the API's gateway events can reach live
      // sync after the guild is registered and before its licence is stored, which caches FREE.
      adjustSpec: (spec) => {
        spec.premium_tier = 3;
        spec.features = ['ENHANCED_ROLE_COLORS'];
        spec.roles = [
          ...(spec.roles ?? []),
          { name: 'Booster', colors: { primary_color: 0xff0000, secondary_color: 0x0000ff } },
        ];
        spec.channels = [...(spec.channels ?? []), { name: 'hifi', type: 'voice', bitrate: 384000 }];
      },
    });
    const before = await reader.getGuildState(seeded.guildId);
    const hifi = before.channels.find((channel) => channel.name === 'hifi')!;
    const booster = before.roles.find((role) => role.name === 'Booster')!;
    // The raid, and the boosts run out: the guild falls back to level 0 without enhanced colours.
    await reader.deleteChannel(hifi.id);
    await reader.deleteRole(seeded.guildId, booster.id);
    stack.platform.mutate(seeded.guildId, (live) => {
      live.premium_tier = 0;
      live.features = [];
    });

    const previewed = await harness.preview(snapshotId);
    expect(previewed.status).toBe(200);
    expect(previewed.body.channels_to_create).toEqual([
      expect.objectContaining({ id: hifi.id, bitrate: 96000 }),
    ]);
    expect(previewed.body.roles_to_create).toEqual([
      expect.objectContaining({ id: booster.id, color: '#ff0000', secondary_color: null }),
    ]);
    expect(previewed.body.clamped).toEqual([
      expect.objectContaining({
        scope: 'channels',
        id: hifi.id,
        field: 'bitrate',
        snapshot_value: 384000,
        restored_value: 96000,
      }),
      expect.objectContaining({
        scope: 'roles',
        id: booster.id,
        field: 'secondary_color',
        snapshot_value: '#0000ff',
        restored_value: null,
      }),
    ]);
    const started = await post('/api/v1/restore/start', {
      snapshot_id: snapshotId,
      scope: ALL_SCOPES,
      approved_diff_hash: previewed.body.diff_hash,
    });
    expect(started.status).toBe(202);
    const job = await finished(started.body.id as string);
    expect(job).toMatchObject({ status: 'completed', error_message: null });

    const live = await reader.getGuildState(seeded.guildId);
    expect(live.channels.find((channel) => channel.name === 'hifi')).toMatchObject({
      type: 2,
      bitrate: 96000,
    });
    expect(live.roles.find((role) => role.name === 'Booster')).toMatchObject({
      color: 0xff0000,
      colors: { primary_color: 0xff0000, secondary_color: null, tertiary_color: null },
    });
  });

  it('puts back a gradient role’s secondary colour, shown as that field’s change in the preview', async () => {
    let booster = '';
    const { seeded, snapshotId } = await protectedGuild({
      beforeSnapshot: async (guild) => {
        stack.platform.mutate(guild.guildId, (live) => {
          live.premium_tier = 2;
          live.features = ['ENHANCED_ROLE_COLORS'];
        });
        booster = (
          await reader.createRole(guild.guildId, {
            name: 'Booster',
            colors: { primary_color: 0xff0000, secondary_color: 0x0000ff, tertiary_color: null },
          })
        ).id;
      },
    });
    await raider.updateRole(seeded.guildId, booster, {
      colors: { primary_color: 0xff0000, secondary_color: 0x00ff00, tertiary_color: null },
    });

    const previewed = await harness.preview(snapshotId, ['roles']);
    expect(previewed.body.roles_to_update).toEqual([
      {
        current: expect.objectContaining({ id: booster, secondary_color: '#00ff00' }),
        target: expect.objectContaining({ id: booster, secondary_color: '#0000ff' }),
        changed_fields: ['secondary_color'],
      },
    ]);
    const job = await finished((await harness.start(snapshotId, ['roles'])).body.id as string);
    expect(job).toMatchObject({ status: 'completed' });
    const live = await reader.getGuildState(seeded.guildId);
    expect(live.roles.find((role) => role.id === booster)?.colors).toEqual({
      primary_color: 0xff0000,
      secondary_color: 0x0000ff,
      tertiary_color: null,
    });
  });

  it('opens an AntiNuke incident for a raid seen by live sync, with no Temporal and no LicenseUpgraded', async () => {
    const { seeded, guildId } = await protectedGuild({ plan: 'ENTERPRISE' });
    // No licence event reached this process: the guild's guard comes from its plan when first needed.
    const settings = await get(`/api/v1/guilds/${guildId}/antinuke`);
    expect(settings.body).toMatchObject({ detection_available: true, workflow_running: true });

    await raider.deleteChannel(seeded.channels.rules);
    await raider.deleteChannel(seeded.channels.announcements);
    await raider.deleteChannel(seeded.channels['mod-chat']);
    const incidents = await waitFor(
      'the incident',
      async () => {
        const list = await get(`/api/v1/guilds/${guildId}/incidents`);
        const items = list.body.items as Body[] | undefined;
        return items?.length ? items : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(incidents).toEqual([
      expect.objectContaining({ actor_platform_user_id: ADMIN, action: 'channel_delete', count: 3 }),
    ]);
    const snapshot = await get(`/api/v1/snapshots/${incidents[0].snapshot_id as string}`);
    expect(snapshot.body).toMatchObject({ trigger: 'antinuke' });
  });

  it('ends failed, at the next start, a restore whose process was killed mid-run; a new restore then completes', async () => {
    const { seeded, name, guildId, snapshotId, payload, jobId } = await slowRestore();
    await runningStep(jobId, 'CreateOrUpdateRoles');
    expect(await pausedGuild(guildId)).toBe(true);

    await stack.recovery.stop('SIGKILL');
    stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);
    // Nothing ran it since: the job still says running, and live sync is still paused for it.
    const [left] = await dataSource.query<{ status: string }[]>(
      `SELECT status FROM recovery.restore_jobs WHERE id = $1`,
      [jobId],
    );
    expect(left.status).toBe('running');

    await stack.restartRecovery();
    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'failed', error_message: STOPPED_MESSAGE });
    const events = await restoreEvents(jobId);
    expect(events.map((event) => event.event_type)).toEqual(['RestoreStarted', 'RestoreFailed']);
    expect(events[1].envelope.payload).toMatchObject({
      status: 'failed',
      error_code: 'ServiceStopped',
      error_message: STOPPED_MESSAGE,
      requested_by_platform_user_id: OWNER,
      guild_name: name,
    });
    expect(await pausedGuild(guildId)).toBe(false);

    // As the message says: preview again (against the partly restored guild) and restore.
    await onTheGateway();
    const again = await start(snapshotId);
    expect(again.status).toBe(202);
    expect(await finished(again.body.id as string)).toMatchObject({ status: 'completed' });
    await expectRestored(guildId, seeded.guildId, payload);
  }, 120_000);

  it('ends failed, at the next start, a restore its process never started (killed between insert and start)', async () => {
    const { guildId, jobId } = await slowRestore();
    await runningStep(jobId, 'CreateOrUpdateRoles');
    await stack.recovery.stop('SIGKILL');
    stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);
    // The state a process leaves when it stops after inserting the job and before its engine took it.
    await dataSource.query(
      `UPDATE recovery.restore_jobs SET status = 'pending', engine_workflow_id = NULL, started_at = NULL
        WHERE id = $1`,
      [jobId],
    );

    await stack.restartRecovery();
    expect(await finished(jobId)).toMatchObject({ status: 'failed', error_message: STOPPED_MESSAGE });
    expect(await pausedGuild(guildId)).toBe(false);
  }, 120_000);

  it('at a graceful stop lets the running step finish and ends the restore failed at once', async () => {
    const { guildId, jobId } = await slowRestore();
    await runningStep(jobId, 'CreateOrUpdateRoles');
    stack.platform.setRateLimits(DEFAULT_RATE_LIMITS);
    expect(await stack.recovery.stop('SIGTERM')).toBe(0);

    // Ended by the stopping process itself, before any new one started.
    const [job] = await dataSource.query<{ status: string; error_message: string }[]>(
      `SELECT status, error_message FROM recovery.restore_jobs WHERE id = $1`,
      [jobId],
    );
    expect(job).toEqual({ status: 'failed', error_message: STOPPED_MESSAGE });
    expect(await pausedGuild(guildId)).toBe(false);
    // The step under way was finished: every role of the snapshot is back.
    const [{ roles_created }] = await dataSource.query<{ roles_created: number }[]>(
      `SELECT count(*)::int AS roles_created FROM recovery.platform_id_replacements
        WHERE guild_id = $1 AND kind = 'role'`,
      [guildId],
    );
    expect(roles_created).toBe(13);
    await stack.restartRecovery();
  }, 120_000);

  it('undoes a raid on members too: roles given back, the raid’s 50 bans lifted, nobody else touched', async () => {
    const scenario = await memberRaid(harness, stack.platform);
    const started = await harness.start(scenario.snapshotId, SIX_SCOPES);
    expect(started.status).toBe(202);
    const job = await finished(started.body.id as string);

    expect(job).toMatchObject({
      status: 'completed',
      result_summary: { members_updated: 32, member_roles_restored: 37, members_absent: 50, bans_lifted: 50 },
    });
    await expectRestored(scenario.guildId, scenario.seeded.guildId, scenario.payload);
    await expectMembersUndone(harness, stack.platform, scenario, job as never);
  }, 90_000);

  it('undoes a raid on everything a guild is, by one restore: emojis, images, a forum, AutoMod, webhooks, onboarding', async () => {
    const { seeded, guildId, snapshotId } = await expressionScenario(harness, raider);
    const preview = await harness.preview(snapshotId, EXPRESSION_SCOPES);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      emojis_to_create: expect.arrayContaining([expect.objectContaining({ name: 'dance', animated: true })]),
      emojis_to_delete: [expect.objectContaining({ name: 'party' })],
      stickers_to_create: [expect.objectContaining({ name: 'bye' })],
      stickers_to_update: [expect.objectContaining({ changed_fields: ['description', 'tags'] })],
      guild_images_to_set: [
        expect.objectContaining({ slot: 'icon' }),
        expect.objectContaining({ slot: 'banner', current: null }),
      ],
      automod_rules_to_create: [expect.objectContaining({ name: 'No links' })],
      automod_rules_to_update: [expect.objectContaining({ changed_fields: ['enabled'] })],
      automod_rules_to_delete: [expect.objectContaining({ name: 'raider' })],
      webhooks_to_create: [expect.objectContaining({ name: 'Feed', image: expect.any(String) })],
      webhooks_to_update: [],
      webhooks_to_delete: [expect.objectContaining({ name: 'raider hook' })],
      channels_to_create: [
        expect.objectContaining({
          name: 'suggestions',
          type: 15,
          available_tags: [
            expect.objectContaining({ name: 'bug', emoji_name: '🐛' }),
            expect.objectContaining({ name: 'idea' }),
            expect.objectContaining({ name: 'done', moderated: true }),
          ],
        }),
      ],
      welcome_screen_changes: ['enabled', 'description', 'welcome_channels'],
      onboarding_prompts_to_delete: [expect.objectContaining({ title: 'Join the raid?' })],
    });

    const started = await harness.start(snapshotId, EXPRESSION_SCOPES);
    expect(started.status).toBe(202);
    const job = await finished(started.body.id as string);
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    expect(job.result_summary).toMatchObject({
      emojis_created: 3,
      emojis_deleted: 1,
      stickers_created: 1,
      stickers_updated: 1,
      guild_images_updated: 2,
      automod_rules_created: 1,
      automod_rules_updated: 1,
      automod_rules_deleted: 1,
      webhooks_created: 1,
      webhooks_updated: 0,
      webhooks_deleted: 1,
      channels_created: 1,
      onboarding_prompts_created: 2,
      onboarding_prompts_deleted: 1,
    });
    // The webhook made anew has a new address: the job lists it for the guild's owner alone.
    const feed = (await harness.reader.listWebhooks(seeded.guildId)).find(
      (webhook) => webhook.name === 'Feed',
    )!;
    expect(job.new_webhooks).toEqual([
      {
        webhook_id: feed.id,
        name: 'Feed',
        channel_id: feed.channel_id,
        channel_name: 'general',
        address: expect.stringMatching(new RegExp(`/webhooks/${feed.id}/[\\w-]+$`)),
      },
    ]);
    const asAdmin = await harness.getJob(started.body.id as string, ADMIN);
    expect(asAdmin.body.new_webhooks).toEqual([expect.objectContaining({ name: 'Feed', address: null })]);
    const { live, snapshot } = await expressionsRestored(
      harness,
      dataSource,
      guildId,
      seeded.guildId,
      snapshotId,
    );
    expect(snapshot.emojis).toHaveLength(3);
    expect(snapshot.webhooks).toHaveLength(2);
    expect(snapshot.forum?.tags).toHaveLength(3);
    expect(snapshot.onboarding?.enabled).toBe(true);
    expect(live).toEqual(snapshot);

    // A second preview finds nothing left to do.
    const again = await harness.preview(snapshotId, EXPRESSION_SCOPES);
    expect(again.body).toMatchObject({
      emojis_to_create: [],
      emojis_to_update: [],
      emojis_to_delete: [],
      stickers_to_create: [],
      stickers_to_update: [],
      stickers_to_delete: [],
      guild_images_to_set: [],
      automod_rules_to_create: [],
      automod_rules_to_update: [],
      automod_rules_to_delete: [],
      webhooks_to_create: [],
      webhooks_to_update: [],
      webhooks_to_delete: [],
    });
  });

  it('puts back role icons from the snapshot’s images: a deleted role’s, and one the raider changed', async () => {
    const icons = { Member: uniquePng(), Moderator: uniquePng() };
    const { seeded, guildId, snapshotId, payload } = await protectedGuild({
      plan: 'ENTERPRISE',
      adjustSpec: (spec) => {
        spec.features = ['ROLE_ICONS'];
        spec.roles = spec.roles!.map((role) =>
          role.name === 'Member' || role.name === 'Moderator' ? { ...role, icon: icons[role.name] } : role,
        );
      },
    });
    const { Member: member, Moderator: moderator } = seeded.roles;
    const kept = readSnapshotPayload(payload).role_icons!;
    expect(Object.keys(kept).sort()).toEqual([member, moderator].sort());
    // A later snapshot refers to the images kept already instead of reading them again.
    const iconReads = () =>
      stack.platform.requestLog().filter((request) => request.path.startsWith('/cdn/role-icons/')).length;
    const readsBefore = iconReads();
    const second = await post(`/api/v1/guilds/${guildId}/snapshots`, { description: 'again' });
    expect(second.status).toBe(200);
    expect(iconReads()).toBe(readsBefore);
    await raider.deleteRole(seeded.guildId, member);
    await raider.updateRole(seeded.guildId, moderator, {
      icon: `data:image/png;base64,${RAIDER_PNG.toString('base64')}`,
    });

    const previewed = await harness.preview(snapshotId, ['roles']);
    expect(previewed.status).toBe(200);
    expect(previewed.body.roles_to_create).toEqual([
      expect.objectContaining({ id: member, icon: expect.any(String) }),
    ]);
    expect(previewed.body.roles_to_update).toEqual([
      expect.objectContaining({
        target: expect.objectContaining({ id: moderator }),
        changed_fields: ['icon'],
      }),
    ]);
    const job = await finished((await harness.start(snapshotId, ['roles'])).body.id as string);
    expect(job).toMatchObject({ status: 'completed', error_message: null });

    // Each role's icon, read back from the platform's CDN, is the image the snapshot kept.
    const live = await reader.getGuildState(seeded.guildId);
    for (const name of ['Member', 'Moderator'] as const) {
      const role = live.roles.find((candidate) => candidate.name === name)!;
      expect(role.icon).not.toBeNull();
      const image = await fetch(`${stack.platform.cdnUrl}/role-icons/${role.id}/${role.icon}.png`);
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer()).equals(icons[name])).toBe(true);
    }
    const again = await harness.preview(snapshotId, ['roles']);
    expect(again.body).toMatchObject({ roles_to_create: [], roles_to_update: [], skipped: [] });
  });

  it('puts back the welcome screen and onboarding, naming the channel and emoji the restore made anew', async () => {
    const { seeded, guildId, snapshotId } = await welcomeFlowScenario(harness, raider);
    const preview = await harness.preview(snapshotId, WELCOME_FLOW_SCOPES);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      channels_to_create: [expect.objectContaining({ name: 'events' })],
      emojis_to_create: [expect.objectContaining({ name: 'wave' })],
      welcome_screen_changes: ['enabled', 'description', 'welcome_channels'],
      onboarding_changes: ['default_channel_ids', 'enabled'],
      onboarding_prompts_to_create: [
        expect.objectContaining({ title: 'What brings you here?', options: 2 }),
        expect.objectContaining({ title: 'Pick one', options: 1 }),
      ],
      onboarding_prompts_to_update: [],
      onboarding_prompts_to_delete: [expect.objectContaining({ title: 'Join the raid?' })],
      skipped: [],
    });

    const started = await harness.start(snapshotId, WELCOME_FLOW_SCOPES);
    expect(started.status).toBe(202);
    const job = await finished(started.body.id as string);
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    expect(job.result_summary).toMatchObject({
      channels_created: 1,
      emojis_created: 1,
      onboarding_prompts_created: 2,
      onboarding_updated: 2,
      onboarding_prompts_deleted: 1,
    });
    const { live, snapshot, raw } = await welcomeFlowRestored(
      harness,
      dataSource,
      guildId,
      seeded.guildId,
      snapshotId,
    );
    expect(live).toEqual(snapshot);
    // The ids were followed: the channel and emoji are the ones the restore made.
    const events = raw.channels.find((channel) => channel.name === 'events')!.id;
    const madeEvents = (await idMap(dataSource, guildId))('channel', events);
    expect(madeEvents).not.toBe(events);
    expect(live.onboarding!.default_channel_ids).toContain(madeEvents);
    expect(live.welcome_screen!.welcome_channels[1].emoji_id).not.toBe(
      raw.welcome_screen!.welcome_channels[1].emoji_id,
    );

    const again = await harness.preview(snapshotId, WELCOME_FLOW_SCOPES);
    expect(again.body).toMatchObject({
      welcome_screen_changes: [],
      onboarding_changes: [],
      onboarding_prompts_to_create: [],
      onboarding_prompts_to_update: [],
      onboarding_prompts_to_delete: [],
    });
  });

  describe('the images snapshots keep', () => {
    const imageRows = async (digests: string[]) =>
      Number(
        (
          await dataSource.query<{ count: string }[]>(
            `SELECT count(*) FROM recovery.snapshot_images WHERE digest = ANY($1::text[])`,
            [digests],
          )
        )[0].count,
      );

    it('stores each image once however many snapshots hold it, and removes it once none does', async () => {
      const { guildId, snapshotId, payload } = await harness.protectedGuild({
        plan: 'ENTERPRISE',
        adjustSpec: withOwnImages,
      });
      const digests = snapshotImageDigests(readSnapshotPayload(payload));
      // The icon, the banner, two still emojis, two stickers and a webhook's avatar of their own, the
      // animated default.
      expect(digests).toHaveLength(8);
      const cdnReads = () => stack.platform.requestLog().filter((r) => r.path.startsWith('/cdn/')).length;
      const readsBefore = cdnReads();
      const second = await harness.post(`/api/v1/guilds/${guildId}/snapshots`, { description: 'again' });
      expect(second.status).toBe(200);
      // Nothing read again, nothing stored twice: the second snapshot refers to the same images.
      expect(cdnReads()).toBe(readsBefore);
      expect(await imageRows(digests)).toBe(8);
      const refs = await dataSource.query<{ snapshot_id: string; images: string }[]>(
        `SELECT snapshot_id, count(*) AS images FROM recovery.snapshot_image_refs
          WHERE guild_id = $1 GROUP BY snapshot_id`,
        [guildId],
      );
      expect(refs.map((ref) => [ref.snapshot_id, Number(ref.images)]).sort()).toEqual(
        [
          [snapshotId, 8],
          [second.body.id, 8],
        ].sort(),
      );

      const store = new PostgresImageStore(dataSource);
      const later = new Date(Date.now() + 2 * 3_600_000);
      await dataSource.query(`DELETE FROM recovery.snapshots WHERE id = $1`, [snapshotId]);
      await store.removeUnreferenced(later, 1_000);
      expect(await imageRows(digests)).toBe(8);
      await dataSource.query(`DELETE FROM recovery.snapshots WHERE id = $1`, [second.body.id]);
      // An image kept within the hour may belong to a snapshot being stored: it stays until then.
      await store.removeUnreferenced(new Date(Date.now() - 3_600_000), 1_000);
      expect(await imageRows(digests)).toBe(8);
      await store.removeUnreferenced(later, 1_000);
      // The animated emoji's image is the fake's default, which other guilds' snapshots hold too.
      expect(await imageRows(digests)).toBe(1);
    });

    it('exports a snapshot as one file that reads back to the same payload and images', async () => {
      const { guildId, snapshotId } = await harness.protectedGuild({
        plan: 'ENTERPRISE',
        adjustSpec: withExpressions,
      });
      const exported = await get(`/api/v1/snapshots/${snapshotId}/export`);
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-disposition')).toBe(
        `attachment; filename="guildkeeper-snapshot-${snapshotId}.json"`,
      );
      const { payload, images } = readSnapshotExport(exported.body);
      const [stored] = await dataSource.query<{ payload: unknown }[]>(
        `SELECT payload FROM recovery.snapshots WHERE id = $1 AND guild_id = $2`,
        [snapshotId, guildId],
      );
      expect(payload).toEqual(readSnapshotPayload(stored.payload));
      const digests = snapshotImageDigests(payload);
      expect([...images.keys()].sort()).toEqual([...digests].sort());
      const kept = await new PostgresImageStore(dataSource).read(digests);
      for (const digest of digests)
        expect(images.get(digest)!.bytes.equals(kept.get(digest)!.bytes)).toBe(true);
      // A member without Manage Server is told there is no such snapshot, as for reading it.
      const refused = await stack.call(
        stack.recovery,
        'GET',
        `/api/v1/snapshots/${snapshotId}/export`,
        stack.user(MEMBER),
      );
      expect(refused.status).toBe(404);
    });
  });
});
