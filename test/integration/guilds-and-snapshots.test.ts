import type { GuildState } from '@lib/chat-platform';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream, SubscriptionScenario } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { readSnapshotPayload, snapshotMemberRoles } from '../../apps/recovery/src/snapshots/snapshot-payload';
import { RecoveryStack } from '../support/recovery-stack';
import { waitFor } from '../support/wait';

const OWNER = '100000000000000001';
const ADMIN = '100000000000000002';
const MODERATOR = '100000000000000003';
const MEMBER = '100000000000000004';
const STRANGER = '100000000000000005';

/** Guild registry, MANAGE_GUILD, the licence route and snapshots, against the fake platform. */
describe('guilds and snapshots', () => {
  const stack = new RecoveryStack();
  let dataSource: DataSource;
  let billing: BillingEventStream;

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  /** A guild on the fake platform with an owner, an admin, a moderator and a plain member. */
  function seedGuild(name = `Guild ${uuidv7().slice(-6)}`) {
    return stack.platform.seedGuild({
      name,
      owner: { id: OWNER, username: 'owner' },
      roles: [
        { name: 'Member', permissions: P.SendMessages, color: 0x3498db },
        { name: 'Moderator', permissions: P.ManageGuild | P.KickMembers, hoist: true },
        { name: 'Admin', permissions: P.Administrator, color: 0xe74c3c },
      ],
      categories: [
        {
          name: 'Info',
          overwrites: [{ role: '@everyone', deny: P.SendMessages }],
          channels: [
            { name: 'rules', topic: 'Be kind', overwrites: [{ role: 'Moderator', allow: P.SendMessages }] },
            { name: 'announcements', type: 'announcement' },
          ],
        },
        { name: 'Voice', channels: [{ name: 'lounge', type: 'voice', bitrate: 64000, user_limit: 10 }] },
      ],
      channels: [{ name: 'general', topic: 'Anything goes', rate_limit_per_user: 5 }],
      members: [
        { username: 'admin', id: ADMIN, roles: ['Admin'] },
        { username: 'moderator', id: MODERATOR, roles: ['Moderator'] },
        { username: 'member', id: MEMBER, roles: ['Member'] },
      ],
    });
  }

  async function registeredGuild(plan?: 'PRO' | 'ENTERPRISE') {
    const seeded = seedGuild();
    const registered = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(OWNER), {
      platform_guild_id: seeded.guildId,
    });
    expect(registered.status).toBe(200);
    const guildId = registered.body.id as string;
    if (plan) {
      const subscription = new SubscriptionScenario(guildId);
      const started = subscription.started(plan);
      await billing.publish(started);
      await waitFor('the licence', async () => {
        const rows = await dataSource.query(`SELECT 1 FROM licensing.licenses WHERE guild_id = $1`, [
          guildId,
        ]);
        return rows.length === 1;
      });
    }
    return { seeded, guildId };
  }

  describe('registry and MANAGE_GUILD', () => {
    it('registers a guild the bot is in for a user who administers it, once', async () => {
      const seeded = seedGuild('Raid Survivors');
      const first = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(ADMIN), {
        platform_guild_id: seeded.guildId,
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        platform_guild_id: seeded.guildId,
        name: 'Raid Survivors',
        active: true,
      });
      const again = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(OWNER), {
        platform_guild_id: seeded.guildId,
      });
      expect(again.body.id).toBe(first.body.id);
      const [row] = await dataSource.query(`SELECT * FROM recovery.guilds WHERE id = $1`, [first.body.id]);
      expect(row).toMatchObject({ platform_guild_id: seeded.guildId, owner_platform_user_id: OWNER });
      expect(row.bot_installed_at).toBeInstanceOf(Date);
    });

    it('refuses a plain member, a guild without the bot and a malformed id', async () => {
      const seeded = seedGuild();
      const member = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(MEMBER), {
        platform_guild_id: seeded.guildId,
      });
      expect(member).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
      const botless = stack.platform.seedGuild({
        name: 'No bot',
        owner: { id: OWNER },
        bot: { member: false },
      });
      const noBot = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(OWNER), {
        platform_guild_id: botless.guildId,
      });
      expect(noBot).toMatchObject({ status: 404, body: { code: 'ErrBotNotInstalled' } });
      const malformed = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(OWNER), {
        platform_guild_id: '1; DROP TABLE recovery.guilds',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.contentType).toContain('application/problem+json');
      const [{ count }] = await dataSource.query(
        `SELECT count(*)::int AS count FROM recovery.guilds WHERE platform_guild_id = ANY($1)`,
        [[seeded.guildId, botless.guildId]],
      );
      expect(count).toBe(0);
    });

    it('grants the owner, ADMINISTRATOR and MANAGE_GUILD, and nobody else', async () => {
      const { guildId } = await registeredGuild();
      const expectations: [string, number][] = [
        [OWNER, 200],
        [ADMIN, 200],
        [MODERATOR, 200],
        [MEMBER, 403],
        [STRANGER, 403],
      ];
      for (const [user, status] of expectations) {
        const response = await stack.call(
          stack.recovery,
          'GET',
          `/api/v1/guilds/${guildId}`,
          stack.user(user),
        );
        expect([user, response.status]).toEqual([user, status]);
      }
      const unknown = await stack.call(
        stack.recovery,
        'GET',
        `/api/v1/guilds/${uuidv7()}`,
        stack.user(OWNER),
      );
      // Nobody manages a guild that does not exist, or an id that names none.
      expect(unknown).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
      const bad = await stack.call(stack.recovery, 'GET', `/api/v1/guilds/not-a-uuid`, stack.user(OWNER));
      expect(bad).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
    });
  });

  describe('licence route (dashboard)', () => {
    it('shows the licence to a guild administrator and to nobody else', async () => {
      const { guildId } = await registeredGuild('PRO');
      const shown = await stack.call(
        stack.licensing,
        'GET',
        `/api/v1/guilds/${guildId}/license`,
        stack.user(MODERATOR),
      );
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({
        guild_id: guildId,
        plan: { code: 'PRO', name: 'Pro', rank: 1, price_krw: 9900 },
        status: 'active',
        limits: {
          snapshot_manual_max: 1,
          scheduled_snapshot_retention_days: 7,
          audit_log_retention_days: 90,
        },
      });
      const refused = await stack.call(
        stack.licensing,
        'GET',
        `/api/v1/guilds/${guildId}/license`,
        stack.user(MEMBER),
      );
      expect(refused).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
      const unknown = await stack.call(
        stack.licensing,
        'GET',
        `/api/v1/guilds/${uuidv7()}/license`,
        stack.user(OWNER),
      );
      expect(unknown).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
      const service = await stack.call(stack.licensing, 'GET', `/api/v1/guilds/${guildId}/license`, {
        kind: 'service',
        service: 'billing',
      });
      expect(service.status).toBe(401);
    });
  });

  describe('manual snapshots', () => {
    const snapshot = (guildId: string, user = OWNER, body: unknown = { description: 'before the raid' }) =>
      stack.call(stack.recovery, 'POST', `/api/v1/guilds/${guildId}/snapshots`, stack.user(user), body);

    it('stores a faithful copy of the guild with its size, and announces it', async () => {
      const { seeded, guildId } = await registeredGuild('PRO');
      const created = await snapshot(guildId);
      expect(created.status).toBe(200);
      expect(Object.keys(created.body).sort()).toEqual(['created_at', 'id', 'size']);

      const [row] = await dataSource.query<{ payload: GuildState & { version: number } }[]>(
        `SELECT payload, payload_size, trigger, description, created_by_platform_user_id
           FROM recovery.snapshots WHERE id = $1`,
        [created.body.id],
      );
      expect(row).toMatchObject({
        payload_size: created.body.size,
        trigger: 'manual',
        description: 'before the raid',
        created_by_platform_user_id: OWNER,
      });
      const live = stack.platform.guild(seeded.guildId);
      const payload = row.payload;
      expect(payload.version).toBe(3);
      // Who held which role: every member with a role, as the platform has them.
      const held = snapshotMemberRoles(readSnapshotPayload(payload))!;
      const members = stack.platform.guild(seeded.guildId).members.filter((m) => m.roles.length > 0);
      expect(members.length).toBeGreaterThan(0);
      expect(Object.fromEntries([...held].map(([id, roles]) => [id, [...roles].sort()]))).toEqual(
        Object.fromEntries(members.map((m) => [m.user_id, [...m.roles].sort()])),
      );
      expect(payload.guild).toMatchObject({ id: seeded.guildId, name: live.name, owner_id: OWNER });
      expect(payload.roles.map((r) => r.id).sort()).toEqual(live.roles.map((r) => r.id).sort());
      const admin = payload.roles.find((r) => r.id === seeded.roles.Admin);
      expect(admin).toMatchObject({ name: 'Admin', color: 0xe74c3c, permissions: String(P.Administrator) });
      expect(payload.channels.map((c) => c.id).sort()).toEqual(live.channels.map((c) => c.id).sort());
      const rules = payload.channels.find((c) => c.id === seeded.channels.rules);
      expect(rules).toMatchObject({ name: 'rules', parent_id: seeded.channels.Info, topic: 'Be kind' });
      const lounge = payload.channels.find((c) => c.id === seeded.channels.lounge);
      expect(lounge).toMatchObject({ type: 2, bitrate: 64000, user_limit: 10 });
      expect(payload.permission_overrides).toEqual(
        expect.arrayContaining([
          {
            channel_id: seeded.channels.Info,
            id: seeded.guildId,
            type: 'role',
            allow: '0',
            deny: String(P.SendMessages),
          },
          {
            channel_id: seeded.channels.rules,
            id: seeded.roles.Moderator,
            type: 'role',
            allow: String(P.SendMessages),
            deny: '0',
          },
        ]),
      );
      expect(JSON.stringify(payload)).not.toMatch(/"content"/);

      const [event] = await dataSource.query(
        `SELECT envelope FROM recovery.outbox WHERE event_type = 'SnapshotCreated' AND envelope->>'aggregate_id' = $1`,
        [created.body.id],
      );
      expect(event.envelope.payload).toMatchObject({
        snapshot_id: created.body.id,
        guild_id: guildId,
        trigger: 'manual',
        created_by_platform_user_id: OWNER,
        guild_name: live.name,
        size: created.body.size,
      });
    });

    it('gives PRO one manual slot, freed by deleting a snapshot', async () => {
      const { guildId } = await registeredGuild('PRO');
      const first = await snapshot(guildId);
      expect(first.status).toBe(200);
      const second = await snapshot(guildId);
      expect(second).toMatchObject({ status: 409, body: { code: 'ErrPlanLimitExceeded', limit: 1 } });
      const deleted = await stack.call(
        stack.recovery,
        'DELETE',
        `/api/v1/snapshots/${String(first.body.id)}`,
        stack.user(OWNER),
      );
      expect(deleted.status).toBe(204);
      expect((await snapshot(guildId)).status).toBe(200);
    });

    it('gives ENTERPRISE three slots', async () => {
      const { guildId } = await registeredGuild('ENTERPRISE');
      for (let i = 0; i < 3; i++) expect((await snapshot(guildId)).status).toBe(200);
      expect((await snapshot(guildId)).body.code).toBe('ErrPlanLimitExceeded');
    });

    it('refuses a FREE guild with ErrPermissionDenied naming the feature', async () => {
      const { guildId } = await registeredGuild();
      const refused = await snapshot(guildId);
      expect(refused).toMatchObject({
        status: 403,
        body: { code: 'ErrPermissionDenied', required_feature: 'RECOVERY_SNAPSHOT_MANUAL' },
      });
    });

    it('refuses while a restore of the guild is pending or running', async () => {
      const { guildId } = await registeredGuild('PRO');
      const jobId = uuidv7();
      await dataSource.query(
        `INSERT INTO recovery.restore_jobs (id, guild_id, snapshot_id, requested_by_user, scope, status, preview_diff)
         VALUES ($1, $2, $3, $4, '{roles}', 'running', '{}')`,
        [jobId, guildId, uuidv7(), uuidv7()],
      );
      try {
        expect(await snapshot(guildId)).toMatchObject({
          status: 409,
          body: { code: 'ErrRestoreInProgress' },
        });
      } finally {
        await dataSource.query(`UPDATE recovery.restore_jobs SET status = 'completed' WHERE id = $1`, [
          jobId,
        ]);
      }
      expect((await snapshot(guildId)).status).toBe(200);
    });

    it('refuses a payload over 5 MiB with ErrSnapshotTooLarge and stores nothing', async () => {
      const { seeded, guildId } = await registeredGuild('PRO');
      stack.platform.mutate(seeded.guildId, (guild) => {
        const general = guild.channels.find((c) => c.id === seeded.channels.general)!;
        general.topic = 'x'.repeat(5 * 1024 * 1024);
      });
      const refused = await snapshot(guildId);
      expect(refused).toMatchObject({ status: 413, body: { code: 'ErrSnapshotTooLarge' } });
      const rows = await dataSource.query(`SELECT 1 FROM recovery.snapshots WHERE guild_id = $1`, [guildId]);
      expect(rows).toEqual([]);
      const metrics = await (await fetch(`${stack.recovery.url}/metrics`)).text();
      expect(metrics).toMatch(/snapshots_too_large_total\{trigger="manual"\} [1-9]/);
    });

    it('tells the user when the platform cannot be read, and stores nothing', async () => {
      const { seeded, guildId } = await registeredGuild('PRO');
      stack.platform.injectFailure({ path: `/guilds/${seeded.guildId}/channels`, status: 502, times: 50 });
      const failed = await snapshot(guildId);
      expect(failed).toMatchObject({ status: 503, body: { code: 'ErrPlatformUnavailable' } });
      const rows = await dataSource.query(`SELECT 1 FROM recovery.snapshots WHERE guild_id = $1`, [guildId]);
      expect(rows).toEqual([]);
    });

    it('answers bad input with problem bodies', async () => {
      const { guildId } = await registeredGuild('PRO');
      for (const body of [
        { trigger: 'scheduled' },
        { description: 42 },
        { description: 'x'.repeat(501) },
        { extra: 1 },
      ]) {
        const refused = await snapshot(guildId, OWNER, body);
        expect([JSON.stringify(body), refused.status, refused.body.code]).toEqual([
          JSON.stringify(body),
          400,
          'ErrValidation',
        ]);
      }
      const notJson = await snapshot(guildId, OWNER, '{"description":');
      expect(notJson).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
      expect((await snapshot(uuidv7())).status).toBe(403);
      expect((await snapshot(guildId, MEMBER)).status).toBe(403);
      const [{ count }] = await dataSource.query(
        `SELECT count(*)::int AS count FROM recovery.snapshots WHERE guild_id = $1`,
        [guildId],
      );
      expect(count).toBe(0);
    });
  });

  describe('list, get and delete', () => {
    it('lists a guild’s snapshots newest first, page by page', async () => {
      const { guildId } = await registeredGuild('ENTERPRISE');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const created = await stack.call(
          stack.recovery,
          'POST',
          `/api/v1/guilds/${guildId}/snapshots`,
          stack.user(OWNER),
          {
            description: `#${i}`,
          },
        );
        ids.push(created.body.id as string);
      }
      const first = await stack.call(
        stack.recovery,
        'GET',
        `/api/v1/guilds/${guildId}/snapshots?limit=2`,
        stack.user(OWNER),
      );
      expect((first.body.items as { id: string }[]).map((s) => s.id)).toEqual([ids[2], ids[1]]);
      const second = await stack.call(
        stack.recovery,
        'GET',
        `/api/v1/guilds/${guildId}/snapshots?limit=2&cursor=${String(first.body.next_cursor)}`,
        stack.user(OWNER),
      );
      expect((second.body.items as { id: string }[]).map((s) => s.id)).toEqual([ids[0]]);
      expect(second.body.next_cursor).toBeNull();
      const badCursor = await stack.call(
        stack.recovery,
        'GET',
        `/api/v1/guilds/${guildId}/snapshots?cursor=bm9wZQ`,
        stack.user(OWNER),
      );
      expect(badCursor.status).toBe(400);
    });

    it('hides another guild’s snapshot as not found, for reading and deleting', async () => {
      const { guildId } = await registeredGuild('PRO');
      const created = await stack.call(
        stack.recovery,
        'POST',
        `/api/v1/guilds/${guildId}/snapshots`,
        stack.user(OWNER),
        {},
      );
      const own = await stack.call(
        stack.recovery,
        'GET',
        `/api/v1/snapshots/${String(created.body.id)}`,
        stack.user(ADMIN),
      );
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ id: created.body.id, trigger: 'manual', version: 3, omitted: [] });
      expect((own.body.counts as { roles: number }).roles).toBeGreaterThan(3);
      expect(own.body.counts).toMatchObject({ members_with_roles: expect.any(Number), bans: 0 });

      for (const method of ['GET', 'DELETE']) {
        const foreign = await stack.call(
          stack.recovery,
          method,
          `/api/v1/snapshots/${String(created.body.id)}`,
          stack.user(STRANGER),
        );
        expect([method, foreign.status, foreign.body.code]).toEqual([method, 404, 'ErrSnapshotNotFound']);
      }
      const malformed = await stack.call(stack.recovery, 'GET', `/api/v1/snapshots/123`, stack.user(OWNER));
      expect(malformed).toMatchObject({ status: 404, body: { code: 'ErrSnapshotNotFound' } });
      const rows = await dataSource.query(`SELECT 1 FROM recovery.snapshots WHERE id = $1`, [
        created.body.id,
      ]);
      expect(rows).toHaveLength(1);

      // Without the members intent the snapshot is still taken, and says what it left out and why.
      const snapshotPath = `/api/v1/snapshots/${String(created.body.id)}`;
      expect((await stack.call(stack.recovery, 'DELETE', snapshotPath, stack.user(OWNER))).status).toBe(204);
      stack.platform.setMembersIntent(false);
      try {
        const without = await stack.call(
          stack.recovery,
          'POST',
          `/api/v1/guilds/${guildId}/snapshots`,
          stack.user(OWNER),
          {},
        );
        expect(without.status).toBe(200);
        const read = await stack.call(
          stack.recovery,
          'GET',
          `/api/v1/snapshots/${String(without.body.id)}`,
          stack.user(OWNER),
        );
        expect(read.body).toMatchObject({
          counts: { members_with_roles: null, bans: 0 },
          omitted: [{ part: 'member_roles', reason: expect.stringContaining('server members intent') }],
        });
      } finally {
        stack.platform.setMembersIntent(true);
      }
    });
  });
});
