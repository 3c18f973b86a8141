import { REST } from '@discordjs/rest';
import { ChatPlatformClient } from '@lib/chat-platform';
import { RESTORE_SCOPES } from '@lib/contracts';
import { demoGuildSpec, type SeededGuild } from '@lib/sandbox';
import { AuditLogEvent, Routes } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { raidDemoGuild, seedDemoGuild } from '../../standalone/sandbox';
import { BillingEventStream } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { RecoveryStack } from '../support/recovery-stack';
import { restorable } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

type Body = Record<string, unknown>;
const SCOPES = [...RESTORE_SCOPES];
const GUILD_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];

/**
 * "Undo this raid" restores the guild as it was just before the raider's first action, whatever
 * AntiNuke's own snapshot (taken once the damage was done) holds: the preview shows exactly the
 * raider's damage, a legitimate change another admin made after the last snapshot stays, and the
 * restore leaves the guild as the platform showed it just before the raid. The whole chain is
 * real: fake platform, gateway, live sync and its change journal, AntiNuke's workflow, the restore.
 */
describe('Undo this raid', () => {
  const stack = new RecoveryStack({ worker: true, liveSync: true });
  let dataSource: DataSource;
  let billing: BillingEventStream;
  let reader: ChatPlatformClient;

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    reader = new ChatPlatformClient({ apiBaseUrl: `${stack.platform.url}/api`, botToken: 'fake-bot-token' });
    await stack.onTheGateway();
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  const call = (owner: string, method: string, path: string, body?: unknown) =>
    stack.call(stack.recovery, method, path, stack.user(owner), body);
  const api = async (owner: string, method: string, path: string, body?: unknown): Promise<Body> => {
    const answer = await call(owner, method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer.body;
  };

  /** What the platform shows of a guild: its state, every member's roles, the bans. */
  async function platformRead(platformGuildId: string) {
    const [state, members, bans] = await Promise.all([
      reader.getGuildState(platformGuildId),
      reader.listMembers(platformGuildId),
      reader.listBans(platformGuildId),
    ]);
    return {
      state,
      members: new Map(members.map((member) => [member.user.id, [...member.roles].sort()])),
      bans: bans.map((ban) => ban.user.id).sort(),
    };
  }

  /** How many guilds live sync mirrors (`live_sync_guilds`). */
  async function mirroredGuilds(): Promise<number> {
    const metrics = await (await fetch(`${stack.recovery.url}/metrics`)).text();
    return Number(/^live_sync_guilds (\d+)$/m.exec(metrics)?.[1] ?? 0);
  }

  /**
   * The guild registered, on ENTERPRISE, watched by AntiNuke (3 in a minute, no auto-action), with
   * a manual snapshot; then another admin (the owner, by the platform's API) renames #welcome and
   * creates a role: legitimate changes the snapshot lacks. Returns once live sync journals changes.
   */
  async function watchedGuild(seeded: { guildId: string; ownerId: string }) {
    const owner = seeded.ownerId;
    const mirroredBefore = await mirroredGuilds();
    const guildId = await stack.guildWatchedByAntiNuke(seeded.guildId, billing, owner);
    await api(owner, 'PUT', `/api/v1/guilds/${guildId}/antinuke`, {
      threshold: 3,
      window_seconds: 60,
      auto_action_enabled: false,
    });
    await api(owner, 'POST', `/api/v1/guilds/${guildId}/snapshots`, { description: 'known good' });

    const ownerToken = `raid-undo-owner-${guildId}`;
    stack.platform.registerBotToken(ownerToken, owner, 'owner');
    const admin = new ChatPlatformClient({ apiBaseUrl: `${stack.platform.url}/api`, botToken: ownerToken });
    const welcome = (await reader.getGuildState(seeded.guildId)).channels.find((c) => c.name === 'welcome')!;
    await admin.updateChannel(welcome.id, { name: 'welcome-everyone' });
    // Live sync reads the guild on its first event: what follows is journalled.
    await waitFor('live sync to mirror the guild', async () => (await mirroredGuilds()) > mirroredBefore, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const created = await admin.createRole(seeded.guildId, { name: 'Event Staff', permissions: '0' });
    await waitFor(
      'live sync to journal the new role',
      async () =>
        (
          await dataSource.query(
            `SELECT 1 FROM recovery.change_journal WHERE guild_id = $1 AND object_id = $2`,
            [guildId, created.id],
          )
        ).length === 1,
      { timeoutMs: 30_000, intervalMs: 100 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${stack.recovery.output().slice(-6000)}`);
    });
    return { guildId, owner };
  }

  async function incidentOf(owner: string, guildId: string): Promise<Body> {
    return waitFor(
      'an incident',
      async () => {
        const items = (await api(owner, 'GET', `/api/v1/guilds/${guildId}/incidents`)).items as Body[];
        return items.length > 0 ? items[0] : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${stack.recovery.output().slice(-4000)}`);
    });
  }

  /** Live sync has journalled the raider's last entry (the journal is written in batches). */
  async function journalHolds(guildId: string, actor: string, actionType: number, targetId: string) {
    await waitFor(
      'the raider’s last action in the journal',
      async () =>
        (
          await dataSource.query(
            `SELECT 1 FROM recovery.change_journal_audit_entries
              WHERE guild_id = $1 AND actor_id = $2 AND action_type = $3 AND target_id = $4`,
            [guildId, actor, actionType, targetId],
          )
        ).length === 1,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  /** "Undo this raid" (twice: nothing changed, the same snapshot) and its preview with every part. */
  async function undoPreview(owner: string, guildId: string, incidentId: string) {
    const path = `/api/v1/guilds/${guildId}/antinuke/incidents/${incidentId}/undo`;
    const undo = await api(owner, 'POST', path);
    expect(undo).toEqual({ snapshot_id: expect.any(String), created: true, unknown_objects: [] });
    expect(await api(owner, 'POST', path)).toEqual({ ...undo, created: false });
    const [snapshot] = await dataSource.query<{ trigger: string }[]>(
      `SELECT trigger FROM recovery.snapshots WHERE id = $1`,
      [undo.snapshot_id],
    );
    expect(snapshot.trigger).toBe('antinuke');
    const incident = await incidentOf(owner, guildId);
    expect(incident.undo_snapshot_id).toBe(undo.snapshot_id);
    const body = { snapshot_id: undo.snapshot_id, scope: SCOPES };
    return { body, preview: await api(owner, 'POST', '/api/v1/restore/preview', body) };
  }

  async function restore(owner: string, body: Body, preview: Body): Promise<void> {
    const started = await api(owner, 'POST', '/api/v1/restore/start', {
      ...body,
      approved_diff_hash: preview.diff_hash,
    });
    await waitFor(
      'the restore to complete',
      async () => {
        const job = await api(owner, 'GET', `/api/v1/restore/${started.id as string}`);
        if (job.status === 'failed') throw new Error(`restore failed: ${JSON.stringify(job)}`);
        return job.status === 'completed';
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
  }

  /** Live id -> the id it replaces, following the replacements the restore recorded. */
  async function toOriginal(guildId: string): Promise<(kind: 'role' | 'channel', id: string) => string> {
    const rows = await dataSource.query<{ kind: string; original_id: string; replacement_id: string }[]>(
      `SELECT kind, original_id, replacement_id FROM recovery.platform_id_replacements WHERE guild_id = $1`,
      [guildId],
    );
    const back = new Map(rows.map((row) => [`${row.kind}:${row.replacement_id}`, row.original_id]));
    return (kind, id) => {
      let current = id;
      for (let hops = 0; back.has(`${kind}:${current}`) && hops < 20; hops++)
        current = back.get(`${kind}:${current}`)!;
      return current;
    };
  }

  /** The guild equals the platform's read from just before the raid, recreated ids aside. */
  async function expectAsBefore(
    guildId: string,
    platformGuildId: string,
    before: Awaited<ReturnType<typeof platformRead>>,
  ) {
    const after = await platformRead(platformGuildId);
    const original = await toOriginal(guildId);
    expect(restorable(after.state, GUILD_SCOPES, original)).toEqual(restorable(before.state, GUILD_SCOPES));
    const rolesOf = (members: Map<string, string[]>) =>
      new Map([...members].map(([id, roles]) => [id, roles.map((role) => original('role', role)).sort()]));
    expect(rolesOf(after.members)).toEqual(before.members);
    expect(after.bans).toEqual(before.bans);
  }

  const updates = (items: unknown) =>
    (items as { current: { name: string }; target: { name: string }; changed_fields: string[] }[]).map(
      (item) => ({ name: item.current.name, target: item.target.name, changed_fields: item.changed_fields }),
    );
  const names = (items: unknown) => (items as { name: string }[]).map((item) => item.name).sort();

  it('undoes the sandbox raid of a hijacked admin, keeping another admin’s changes', async () => {
    const demo = seedDemoGuild(stack.platform);
    const { guildId, owner } = await watchedGuild(demo);
    const before = await platformRead(demo.guildId);

    await raidDemoGuild(stack.platform, demo);
    const incident = await incidentOf(owner, guildId);
    const spam = (await reader.getGuildState(demo.guildId)).channels.find((c) => c.name === 'spam')!;
    await journalHolds(guildId, demo.raiderUserId, AuditLogEvent.ChannelCreate, spam.id);

    // AntiNuke's own snapshot was taken after the damage: restoring from it would undo nothing.
    const { body, preview } = await undoPreview(owner, guildId, incident.id as string);
    expect(names(preview.roles_to_create)).toEqual(['Helper', 'Moderator']);
    expect(names(preview.channels_to_create)).toEqual(['announcements', 'rules', 'staff-chat']);
    expect(names(preview.channels_to_delete)).toEqual(['spam']);
    expect(updates(preview.channels_to_update)).toEqual([
      { name: 'raided', target: 'general', changed_fields: ['name', 'topic'] },
    ]);
    // The legitimate rename and role stay; nothing else of the guild is touched.
    expect(preview.roles_to_delete).toEqual([]);
    expect(preview.roles_to_update).toEqual([]);
    expect(preview.bans_to_lift).toEqual([]);

    await restore(owner, body, preview);
    await expectAsBefore(guildId, demo.guildId, before);
  });

  it('undoes a hijacked bot’s raid: bans lifted and roles given back', async () => {
    const spec = demoGuildSpec(`Bot raid ${Date.now()}`);
    spec.members = [...(spec.members ?? []), { username: 'mod-bot', roles: ['Admin'] }];
    const seeded: SeededGuild = stack.platform.seedGuild(spec);
    const { guildId, owner } = await watchedGuild(seeded);
    const botUser = seeded.members['mod-bot'];
    const token = `raid-undo-bot-${guildId}`;
    stack.platform.registerBotToken(token, botUser, 'mod-bot');
    const raider = new ChatPlatformClient({ apiBaseUrl: `${stack.platform.url}/api`, botToken: token });
    const rest = new REST({ version: '10', api: `${stack.platform.url}/api` }).setToken(token);
    const ban = (userId: string) =>
      rest.put(Routes.guildBan(seeded.guildId, userId), { body: {}, reason: 'raid' });
    const banned = ['member-0001', 'member-0002', 'member-0003', 'member-0004'].map(
      (name) => seeded.members[name],
    );
    const stripped = ['bob', 'carol'].map((name) => seeded.members[name]);
    const before = await platformRead(seeded.guildId);

    // Three bans open the incident; then roles stripped, a role deleted, one more ban.
    for (const userId of banned.slice(0, 3)) await ban(userId);
    const incident = await incidentOf(owner, guildId);
    for (const userId of stripped) await raider.setMemberRoles(seeded.guildId, userId, []);
    await raider.deleteRole(seeded.guildId, seeded.roles.Verified);
    await ban(banned[3]);
    await journalHolds(guildId, botUser, AuditLogEvent.MemberBanAdd, banned[3]);

    const { body, preview } = await undoPreview(owner, guildId, incident.id as string);
    expect(names(preview.roles_to_create)).toEqual(['Verified']);
    expect(preview.channels_to_create).toEqual([]);
    expect(preview.channels_to_delete).toEqual([]);
    expect(preview.channels_to_update).toEqual([]);
    expect(preview.roles_to_delete).toEqual([]);
    expect(preview.roles_to_update).toEqual([]);
    expect((preview.bans_to_lift as { user_id: string }[]).map((item) => item.user_id).sort()).toEqual(
      [...banned].sort(),
    );
    // bob and carol get all their roles back, and everyone who held Verified gets it again.
    const verifiedHolders = [...before.members]
      .filter(([id, roles]) => roles.includes(seeded.roles.Verified) && !banned.includes(id))
      .map(([id]) => id);
    expect(preview.members_to_update).toBe(new Set([...stripped, ...verifiedHolders]).size);

    await restore(owner, body, preview);
    // The banned left the guild with their ban: a bot may lift a ban, not add a member back.
    const members = new Map([...before.members].filter(([id]) => !banned.includes(id)));
    await expectAsBefore(guildId, seeded.guildId, { ...before, members });
  });
});
