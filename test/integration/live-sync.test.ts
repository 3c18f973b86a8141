import { REST } from '@discordjs/rest';
import { ChatPlatformClient } from '@lib/chat-platform';
import type { SeededGuild } from '@lib/sandbox';
import { Routes } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream, SubscriptionScenario } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, MEMBER, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

const RAIDER_TOKEN = 'raider-bot-token';
const KINDS = ['channel_delete', 'role_delete', 'member_ban', 'member_kick'] as const;
type Kind = (typeof KINDS)[number];

/**
 * Live sync in recovery, connected through discord.js to the fake platform's gateway: a raider's
 * destructive actions in a PRO guild are reported with their kind, and a restore's own changes are not.
 * The last test runs the whole chain: raid, gateway, live sync, AntiNuke's workflow, the incident.
 */
describe('live sync', () => {
  const stack = new RecoveryStack({ worker: true, liveSync: true });
  let dataSource: DataSource;
  let billing: BillingEventStream;
  let raider: ChatPlatformClient;
  let raiderRest: REST;

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    // The compromised admin's account, acting through the API with a token of its own.
    stack.platform.registerBotToken(RAIDER_TOKEN, ADMIN, 'admin');
    const api = `${stack.platform.url}/api`;
    raider = new ChatPlatformClient({ apiBaseUrl: api, botToken: RAIDER_TOKEN });
    raiderRest = new REST({ version: '10', api }).setToken(RAIDER_TOKEN);
    await stack.onTheGateway();
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  /** A guild registered with recovery, on a plan with RECOVERY_LIVE_SYNC, with a manual snapshot. */
  async function proGuild(
    plan: 'PRO' | 'ENTERPRISE' = 'PRO',
  ): Promise<{ seeded: SeededGuild; guildId: string; snapshotId: string }> {
    const seeded = seedProtectedGuild(stack.platform, `Guild ${uuidv7().slice(-6)}`);
    const registered = await post('/api/v1/guilds', { platform_guild_id: seeded.guildId });
    expect(registered.status).toBe(200);
    const guildId = registered.body.id as string;
    await billing.publish(new SubscriptionScenario(guildId).started(plan));
    await waitFor('the licence', async () => {
      const rows = await dataSource.query(`SELECT 1 FROM licensing.licenses WHERE guild_id = $1`, [guildId]);
      return rows.length === 1;
    });
    const snapshot = await post(`/api/v1/guilds/${guildId}/snapshots`, { description: 'known good' });
    expect(snapshot.status).toBe(200);
    return { seeded, guildId, snapshotId: snapshot.body.id as string };
  }

  function post(path: string, body: unknown) {
    return stack.call(stack.recovery, 'POST', path, stack.user(OWNER), body);
  }

  /** Live sync's counters, from recovery's `/metrics`. */
  async function counts(): Promise<Record<Kind | 'buffered' | 'resumes', number>> {
    const text = await (await fetch(`${stack.recovery.url}/metrics`)).text();
    const value = (name: string, label = '') =>
      text
        .split('\n')
        .filter(
          (line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && line.includes(label),
        )
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    return {
      channel_delete: value('live_sync_destructive_actions_total', 'kind="channel_delete"'),
      role_delete: value('live_sync_destructive_actions_total', 'kind="role_delete"'),
      member_ban: value('live_sync_destructive_actions_total', 'kind="member_ban"'),
      member_kick: value('live_sync_destructive_actions_total', 'kind="member_kick"'),
      buffered: value('live_sync_buffered_events_total'),
      resumes: value('live_sync_resumes_total'),
    };
  }

  async function countsReach(expected: Partial<Record<Kind, number>>) {
    return waitFor(
      `live sync to count ${JSON.stringify(expected)}`,
      async () => {
        const now = await counts();
        return Object.entries(expected).every(([kind, n]) => now[kind as Kind] >= n) ? now : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${stack.recovery.output().slice(-4000)}`);
    });
  }

  it('reports a raider’s deletes, ban and kick in a PRO guild, each with its kind', async () => {
    const { seeded } = await proGuild();
    const before = await counts();

    await raider.deleteChannel(seeded.channels.rules, { reason: 'nuke' });
    await raider.deleteChannel(seeded.channels['mod-chat']);
    await raider.deleteRole(seeded.guildId, seeded.roles.Moderator);
    await raiderRest.delete(Routes.guildMember(seeded.guildId, MEMBER));
    await raiderRest.put(Routes.guildBan(seeded.guildId, MEMBER));

    const after = await countsReach({
      channel_delete: before.channel_delete + 2,
      role_delete: before.role_delete + 1,
      member_kick: before.member_kick + 1,
      member_ban: before.member_ban + 1,
    });
    for (const kind of KINDS) expect(after[kind]).toBe(before[kind] + (kind === 'channel_delete' ? 2 : 1));
  });

  it('takes a restore’s own deletes for the restore, not a raid, and follows the guild again after it', async () => {
    const { seeded, snapshotId } = await proGuild();
    const before = await counts();
    await raider.deleteChannel(seeded.channels.rules);
    // Something the restore has to delete: a channel that is not in the snapshot.
    await raider.createChannel(seeded.guildId, { name: 'spam', type: 0 });
    const raided = await countsReach({ channel_delete: before.channel_delete + 1 });

    const previewed = await post('/api/v1/restore/preview', { snapshot_id: snapshotId, scope: ['channels'] });
    expect(previewed.status).toBe(200);
    const started = await post('/api/v1/restore/start', {
      snapshot_id: snapshotId,
      scope: ['channels'],
      approved_diff_hash: previewed.body.diff_hash,
      options: {},
    });
    expect(started.status).toBe(202);
    const jobId = started.body.id as string;
    await waitFor(
      'the restore to complete',
      async () => {
        const job = await stack.call(stack.recovery, 'GET', `/api/v1/restore/${jobId}`, stack.user(OWNER));
        return job.body.status === 'completed';
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    // A guild's events are handled in order: once this delete is counted, the restore's were seen.
    await raider.deleteChannel(seeded.channels.general);
    const after = await countsReach({ channel_delete: raided.channel_delete + 1 });
    expect(after.channel_delete).toBe(raided.channel_delete + 1);

    // The restore's delete and creates came while it paused the guild, and the pause ended.
    expect(after.buffered).toBeGreaterThan(raided.buffered);
    expect(after.resumes).toBe(raided.resumes + 1);
  });

  it('end to end: a raid in an ENTERPRISE guild opens one incident, with a snapshot, through live sync', async () => {
    const { seeded, guildId } = await proGuild('ENTERPRISE');
    const owner = stack.user(OWNER);
    await waitFor(
      'AntiNuke to watch the guild',
      async () => {
        const settings = await stack.call(stack.recovery, 'GET', `/api/v1/guilds/${guildId}/antinuke`, owner);
        return settings.body.workflow_running === true;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    await raider.deleteChannel(seeded.channels.rules);
    await raider.deleteChannel(seeded.channels.announcements);
    await raider.deleteChannel(seeded.channels['mod-chat']);
    const incidents = await waitFor(
      'the incident',
      async () => {
        const list = await stack.call(stack.recovery, 'GET', `/api/v1/guilds/${guildId}/incidents`, owner);
        const items = list.body.items as Record<string, unknown>[] | undefined;
        return items?.length ? items : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(incidents).toEqual([
      expect.objectContaining({ actor_platform_user_id: ADMIN, action: 'channel_delete', count: 3 }),
    ]);
    const snapshotId = incidents[0].snapshot_id as string;
    expect(snapshotId).toEqual(expect.any(String));
    const snapshot = await stack.call(
      stack.recovery,
      'GET',
      `/api/v1/snapshots/${snapshotId}?include_payload=true`,
      owner,
    );
    expect(snapshot.body).toMatchObject({ trigger: 'antinuke' });
    // Taken when the burst was noticed: the general channel, deleted only now, is still in it.
    await raider.deleteChannel(seeded.channels.general);
    const channels = (snapshot.body.payload as { channels: { id: string }[] }).channels.map((c) => c.id);
    expect(channels).toContain(seeded.channels.general);
    expect(channels).not.toContain(seeded.channels.rules);
  });
});
