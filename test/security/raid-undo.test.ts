import { REST } from '@discordjs/rest';
import { ChatPlatformClient } from '@lib/chat-platform';
import { demoGuildSpec, type SeededGuild } from '@lib/sandbox';
import { AuditLogEvent, Routes } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { raidDemoGuild, seedDemoGuild } from '../../standalone/sandbox';
import { BillingEventStream } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { RecoveryStack } from '../support/recovery-stack';
import { names, RaidUndo, updates } from './support/raid-undo';

type Body = Record<string, unknown>;

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
  let undo: RaidUndo;

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    undo = new RaidUndo(stack, dataSource);
    reader = undo.reader;
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

  /**
   * The guild registered, on ENTERPRISE, watched by AntiNuke (3 in a minute, no auto-action), with
   * a manual snapshot; then another admin (the owner, by the platform's API) renames #welcome and
   * creates a role: legitimate changes the snapshot lacks. Returns once live sync journals changes.
   */
  async function watchedGuild(seeded: { guildId: string; ownerId: string }) {
    const owner = seeded.ownerId;
    const mirroredBefore = await undo.mirroredGuilds();
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
    await undo.journalling(
      guildId,
      mirroredBefore,
      () => admin.updateChannel(welcome.id, { name: 'welcome-everyone' }),
      async () => (await admin.createRole(seeded.guildId, { name: 'Event Staff', permissions: '0' })).id,
    );
    return { guildId, owner };
  }

  const incidentOf = (owner: string, guildId: string) => undo.incidentOf(owner, guildId);

  it('undoes the sandbox raid of a hijacked admin, keeping another admin’s changes', async () => {
    const demo = seedDemoGuild(stack.platform);
    const { guildId, owner } = await watchedGuild(demo);
    const before = await undo.platformRead(demo.guildId);

    await raidDemoGuild(stack.platform, demo);
    const incident = await incidentOf(owner, guildId);
    const spam = (await reader.getGuildState(demo.guildId)).channels.find((c) => c.name === 'spam')!;
    await undo.journalHolds(guildId, demo.raiderUserId, AuditLogEvent.ChannelCreate, spam.id);

    // AntiNuke's own snapshot was taken after the damage: restoring from it would undo nothing.
    const { body, preview } = await undo.undoPreview(owner, guildId, incident.id as string);
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

    await undo.restore(owner, body, preview);
    await undo.expectAsBefore(guildId, demo.guildId, before);
  });

  it('undoes a hijacked bot’s raid: bans lifted, roles and webhooks given back', async () => {
    const spec = demoGuildSpec(`Bot raid ${Date.now()}`);
    spec.members = [...(spec.members ?? []), { username: 'mod-bot', roles: ['Admin'] }];
    spec.setup = {
      webhooks: [
        { name: 'Deploys', channel: 'general' },
        { name: 'Alerts', channel: 'announcements' },
      ],
    };
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
    const before = await undo.platformRead(seeded.guildId);

    // Three bans open the incident; then roles stripped, a role deleted, a webhook deleted and one
    // made, one more ban.
    for (const userId of banned.slice(0, 3)) await ban(userId);
    const incident = await incidentOf(owner, guildId);
    for (const userId of stripped) await raider.setMemberRoles(seeded.guildId, userId, []);
    await raider.deleteRole(seeded.guildId, seeded.roles.Verified);
    await raider.deleteWebhook(seeded.setup.webhooks.Deploys);
    await raider.createWebhook(seeded.channels.general, { name: 'raid hook' });
    await ban(banned[3]);
    await undo.journalHolds(guildId, botUser, AuditLogEvent.MemberBanAdd, banned[3]);

    const { body, preview } = await undo.undoPreview(owner, guildId, incident.id as string);
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
    // The raider's webhook goes, the one they deleted comes back (with a new address); the other stays.
    expect(names(preview.webhooks_to_create)).toEqual(['Deploys']);
    expect(names(preview.webhooks_to_delete)).toEqual(['raid hook']);
    expect(preview.webhooks_to_update).toEqual([]);

    await undo.restore(owner, body, preview);
    // The banned left the guild with their ban: a bot may lift a ban, not add a member back.
    const members = new Map([...before.members].filter(([id]) => !banned.includes(id)));
    await undo.expectAsBefore(guildId, seeded.guildId, { ...before, members });
    const webhooks = await reader.listWebhooks(seeded.guildId);
    expect(webhooks.map(({ name, channel_id }) => [name, channel_id]).sort()).toEqual(
      [
        ['Alerts', seeded.channels.announcements],
        ['Deploys', seeded.channels.general],
      ].sort(),
    );
  });
});
