import {
  CHANNEL_TYPE_FIELDS,
  ChatPlatformClient,
  type ChatPlatformError,
  FORUM_FIELDS,
  type GuildState,
  isChatPlatformError,
} from '@lib/chat-platform';
import {
  DEMO_CROWD_SIZE,
  FakeChatPlatform,
  type FakeGuild,
  type SeededGuild,
  banSpecs,
  demoGuildSpec,
  memberSpecs,
} from '@lib/sandbox';
import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import { freePort } from '../support/app-process';
import { waitFor } from '../support/wait';

const REASON = 'Restore 0196c3a0 (roles): recreate deleted role';
const UNKNOWN_ID = '123456789012345678';

/** What the adapter should read, derived independently from the fake's own state. */
function expectedState(guild: FakeGuild): GuildState {
  const byPositionThenId = <T extends { position: number; id: string }>(items: T[]) =>
    [...items].sort((a, b) => a.position - b.position || (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const channels = byPositionThenId(guild.channels);
  return {
    guild: {
      id: guild.id,
      name: guild.name,
      description: guild.description,
      icon: guild.icon,
      banner: guild.banner,
      splash: guild.splash,
      discovery_splash: guild.discovery_splash,
      owner_id: guild.owner_id,
      verification_level: guild.verification_level,
      default_message_notifications: guild.default_message_notifications,
      explicit_content_filter: guild.explicit_content_filter,
      afk_channel_id: guild.afk_channel_id,
      afk_timeout: guild.afk_timeout,
      system_channel_id: guild.system_channel_id,
      system_channel_flags: guild.system_channel_flags,
      rules_channel_id: guild.rules_channel_id,
      public_updates_channel_id: guild.public_updates_channel_id,
      preferred_locale: guild.preferred_locale,
      premium_tier: guild.premium_tier,
      features: [...guild.features].sort(),
    },
    roles: byPositionThenId(guild.roles).map((role) => ({
      id: role.id,
      name: role.name,
      color: role.color,
      colors: { ...role.colors },
      position: role.position,
      permissions: role.permissions,
      hoist: role.hoist,
      mentionable: role.mentionable,
      managed: role.managed,
      icon: role.icon,
      unicode_emoji: role.unicode_emoji,
    })),
    channels: channels.map((channel) => ({
      id: channel.id,
      type: channel.type,
      name: channel.name,
      position: channel.position,
      parent_id: channel.parent_id,
      topic: channel.topic,
      nsfw: channel.nsfw,
      rate_limit_per_user: channel.rate_limit_per_user,
      bitrate: channel.bitrate,
      user_limit: channel.user_limit,
      // The fields of the channel's type, and a forum's own, where the fake keeps them.
      ...Object.fromEntries(
        [...CHANNEL_TYPE_FIELDS, ...FORUM_FIELDS]
          .filter((field) => channel[field] !== undefined)
          .map((field) => [field, channel[field]]),
      ),
    })),
    permission_overrides: channels.flatMap((channel) =>
      [...channel.permission_overwrites]
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
        .map((overwrite) => ({
          channel_id: channel.id,
          id: overwrite.id,
          type: overwrite.type === 1 ? ('member' as const) : ('role' as const),
          allow: overwrite.allow,
          deny: overwrite.deny,
        })),
    ),
  };
}

/** The failure a call ends with; fails the test when it succeeds or throws something else. */
async function failureOf(call: Promise<unknown>): Promise<ChatPlatformError> {
  const outcome = await call.then(
    () => new Error('expected the call to fail'),
    (error: unknown) => error,
  );
  if (!isChatPlatformError(outcome)) throw outcome;
  return outcome as ChatPlatformError;
}

describe('ChatPlatformClient against the fake chat platform', () => {
  const fake = new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } });
  let apiBaseUrl: string;
  let client: ChatPlatformClient;

  beforeAll(async () => {
    apiBaseUrl = `${(await fake.start()).url}/api`;
    client = new ChatPlatformClient({ apiBaseUrl, botToken: fake.botToken });
  });

  afterAll(async () => {
    await fake.stop();
  });

  beforeEach(() => fake.reset());

  const requestsTo = (method: string, path: string | RegExp) =>
    fake
      .requestLog()
      .filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));

  describe('reading', () => {
    it("reads a seeded demo guild's full state faithfully, sorted by position then id", async () => {
      const seeded = fake.seedGuild(demoGuildSpec());

      const state = await client.getGuildState(seeded.guildId);

      expect(state).toEqual(expectedState(fake.guild(seeded.guildId)));
      expect(state.roles).toHaveLength(10); // 8 + @everyone + the bot's
      expect(state.channels).toHaveLength(24); // 4 categories + 20 channels
      expect(state.roles[0]).toMatchObject({ id: seeded.guildId, name: '@everyone', position: 0 });
      expect(state.roles.at(-1)).toMatchObject({ id: seeded.botRoleId, managed: true });
      expect(state.roles.find((r) => r.id === seeded.roles.Admin)).toMatchObject({
        permissions: P.Administrator.toString(),
        color: 0xe74c3c,
        hoist: true,
      });
      expect(state.channels.find((c) => c.id === seeded.channels.Lounge)).toMatchObject({
        type: 2,
        parent_id: seeded.channels.Voice,
        bitrate: 96_000,
        user_limit: 0,
        topic: null,
      });
      expect(state.channels.find((c) => c.id === seeded.channels.Staff)).toMatchObject({
        type: 4,
        topic: null,
        bitrate: null,
        rate_limit_per_user: null,
      });
      expect(state.permission_overrides).toContainEqual({
        channel_id: seeded.channels['mod-log'],
        id: seeded.members.alice,
        type: 'member',
        allow: (P.ViewChannel | P.SendMessages).toString(),
        deny: '0',
      });
      expect(state.guild).toMatchObject({
        afk_channel_id: seeded.channels.AFK,
        rules_channel_id: seeded.channels.rules,
        verification_level: 2,
      });
      expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    });

    it('reads the bot user, the roles and a member', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());

      await expect(client.getCurrentUser()).resolves.toMatchObject({ id: fake.botUserId, bot: true });
      const roles = await client.getRoles(seeded.guildId);
      expect(roles.map((r) => r.id)).toEqual(
        expectedState(fake.guild(seeded.guildId)).roles.map((r) => r.id),
      );
      await expect(client.getMember(seeded.guildId, seeded.members.bob)).resolves.toEqual({
        user: { id: seeded.members.bob, username: 'bob', global_name: null, bot: false },
        roles: [seeded.roles.Member, seeded.roles.Verified, seeded.roles.Moderator],
        nick: null,
      });
    });
  });

  describe('writing', () => {
    let seeded: SeededGuild;
    beforeEach(() => {
      seeded = fake.seedGuild(demoGuildSpec());
    });
    const live = () => fake.guild(seeded.guildId);

    it('creates, updates, moves and deletes roles, labelling each change with the reason', async () => {
      const created = await client.createRole(
        seeded.guildId,
        {
          name: 'Archivist',
          color: 0x1abc9c,
          permissions: (P.ViewChannel | P.ReadMessageHistory).toString(),
          hoist: true,
          mentionable: true,
          unicode_emoji: '📚',
        },
        { reason: REASON },
      );
      expect(live().roles.find((r) => r.id === created.id)).toMatchObject({
        name: 'Archivist',
        color: 0x1abc9c,
        permissions: (P.ViewChannel | P.ReadMessageHistory).toString(),
        hoist: true,
        mentionable: true,
        unicode_emoji: '📚',
        position: 1,
      });

      const updated = await client.updateRole(
        seeded.guildId,
        created.id,
        { name: 'Librarian', color: 0 },
        { reason: REASON },
      );
      expect(updated).toMatchObject({ id: created.id, name: 'Librarian', color: 0 });
      expect(live().roles.find((r) => r.id === created.id)).toMatchObject({ name: 'Librarian', color: 0 });

      const moved = await client.setRolePositions(seeded.guildId, [{ id: created.id, position: 6 }], {
        reason: REASON,
      });
      expect(moved.find((r) => r.id === created.id)?.position).toBe(6);
      const positions = live()
        .roles.map((r) => r.position)
        .sort((a, b) => a - b);
      expect(positions).toEqual(positions.map((_, index) => index));
      expect(live().roles.find((r) => r.id === created.id)?.position).toBe(6);

      await client.deleteRole(seeded.guildId, seeded.roles.Moderator, { reason: REASON });
      const after = live();
      expect(after.roles.some((r) => r.id === seeded.roles.Moderator)).toBe(false);
      expect(after.members.find((m) => m.user_id === seeded.members.bob)?.roles).not.toContain(
        seeded.roles.Moderator,
      );
      const modLog = after.channels.find((c) => c.id === seeded.channels['mod-log'])!;
      expect(modLog.permission_overwrites.map((o) => o.id)).not.toContain(seeded.roles.Moderator);

      const writes = fake.requestLog().filter((r) => r.method !== 'GET');
      expect(writes).toHaveLength(4);
      expect(writes.map((r) => r.auditLogReason)).toEqual(Array(4).fill(REASON));
    });

    it('creates a private channel with its overwrites, edits, moves and deletes channels', async () => {
      const created = await client.createChannel(
        seeded.guildId,
        {
          name: 'appeals',
          type: 0,
          parent_id: seeded.channels.Staff,
          topic: 'Ban appeals',
          rate_limit_per_user: 60,
          permission_overrides: [
            { id: seeded.guildId, type: 'role', allow: '0', deny: P.ViewChannel.toString() },
            { id: seeded.members.bob, type: 'member', allow: P.ViewChannel.toString(), deny: '0' },
          ],
        },
        { reason: REASON },
      );
      const stored = live().channels.find((c) => c.id === created.id)!;
      expect(stored).toMatchObject({
        name: 'appeals',
        parent_id: seeded.channels.Staff,
        topic: 'Ban appeals',
        rate_limit_per_user: 60,
        bitrate: null,
      });
      expect(stored.permission_overwrites).toEqual([
        { id: seeded.guildId, type: 0, allow: '0', deny: P.ViewChannel.toString() },
        { id: seeded.members.bob, type: 1, allow: P.ViewChannel.toString(), deny: '0' },
      ]);
      expect(created.permission_overrides).toHaveLength(2);
      expect(created).toMatchObject({
        id: stored.id,
        position: stored.position,
        parent_id: seeded.channels.Staff,
      });

      await client.updateChannel(
        seeded.channels.general,
        { name: 'chat', topic: null, nsfw: true, rate_limit_per_user: 0 },
        { reason: REASON },
      );
      expect(live().channels.find((c) => c.id === seeded.channels.general)).toMatchObject({
        name: 'chat',
        topic: null,
        nsfw: true,
        rate_limit_per_user: 0,
      });

      await client.setChannelPositions(
        seeded.guildId,
        [{ id: seeded.channels.general, parent_id: seeded.channels.Voice, position: 9 }],
        { reason: REASON },
      );
      expect(live().channels.find((c) => c.id === seeded.channels.general)).toMatchObject({
        parent_id: seeded.channels.Voice,
        position: 9,
      });

      await client.deleteChannel(seeded.channels.Community, { reason: REASON });
      await client.deleteChannel(seeded.channels.AFK, { reason: REASON });
      const after = live();
      expect(
        after.channels.some((c) => c.id === seeded.channels.Community || c.id === seeded.channels.AFK),
      ).toBe(false);
      // The platform keeps a deleted category's channels, without a parent.
      expect(after.channels.find((c) => c.id === seeded.channels.memes)?.parent_id).toBeNull();
      expect(after.afk_channel_id).toBeNull();
      expect(fake.requestLog().filter((r) => r.auditLogReason === REASON)).toHaveLength(5);
    });

    it('puts, replaces and deletes permission overwrites', async () => {
      const channelId = seeded.channels.general;
      const overwrite = {
        channel_id: channelId,
        id: seeded.roles.Helper,
        type: 'role' as const,
        allow: P.ManageMessages.toString(),
        deny: '0',
      };
      await expect(client.putPermissionOverride(overwrite, { reason: REASON })).resolves.toEqual(overwrite);
      await client.putPermissionOverride(
        {
          channel_id: channelId,
          id: seeded.members.carol,
          type: 'member',
          allow: '0',
          deny: P.SendMessages.toString(),
        },
        { reason: REASON },
      );
      await client.putPermissionOverride({ ...overwrite, allow: '0', deny: P.AddReactions.toString() });
      const general = () => live().channels.find((c) => c.id === channelId)!;
      expect(general().permission_overwrites).toEqual([
        { id: seeded.roles.Helper, type: 0, allow: '0', deny: P.AddReactions.toString() },
        { id: seeded.members.carol, type: 1, allow: '0', deny: P.SendMessages.toString() },
      ]);

      await client.deletePermissionOverride(channelId, seeded.roles.Helper, { reason: REASON });
      expect(general().permission_overwrites.map((o) => o.id)).toEqual([seeded.members.carol]);
      const missing = await failureOf(client.deletePermissionOverride(channelId, seeded.roles.Helper));
      expect(missing).toMatchObject({ code: 'NotFound', details: { status: 404, platform_code: 10009 } });
    });

    it('updates guild settings', async () => {
      const settings = await client.updateGuildSettings(
        seeded.guildId,
        {
          name: 'Renamed',
          description: null,
          verification_level: 4,
          explicit_content_filter: 0,
          afk_channel_id: seeded.channels.Lounge,
          afk_timeout: 3600,
          system_channel_id: null,
          preferred_locale: 'ko',
        },
        { reason: REASON },
      );
      const expected = {
        name: 'Renamed',
        description: null,
        verification_level: 4,
        explicit_content_filter: 0,
        afk_channel_id: seeded.channels.Lounge,
        afk_timeout: 3600,
        system_channel_id: null,
        preferred_locale: 'ko',
        rules_channel_id: seeded.channels.rules,
      };
      expect(settings).toMatchObject(expected);
      expect(live()).toMatchObject(expected);
    });

    it("changes a member's roles", async () => {
      const erin = seeded.members.erin;
      await client.addMemberRole(seeded.guildId, erin, seeded.roles.Verified, { reason: REASON });
      await client.removeMemberRole(seeded.guildId, erin, seeded.roles.Muted, { reason: REASON });
      const rolesOf = (userId: string) => live().members.find((m) => m.user_id === userId)?.roles;
      expect(rolesOf(erin)).toEqual([seeded.roles.Verified]);

      const dave = await client.setMemberRoles(
        seeded.guildId,
        seeded.members.dave,
        [seeded.roles.Member, seeded.roles.VIP],
        { reason: REASON },
      );
      expect(dave.roles).toEqual([seeded.roles.Member, seeded.roles.VIP]);
      expect(rolesOf(seeded.members.dave)).toEqual([seeded.roles.Member, seeded.roles.VIP]);
    });

    it('sends a DM through one DM channel per user, and the platform logs it', async () => {
      const embeds = [
        {
          title: 'Restore completed',
          description: '12 changes applied',
          fields: [{ name: 'Roles', value: '3' }],
        },
      ];
      const first = await client.sendDirectMessage(seeded.members.alice, {
        content: 'Your restore is done',
        embeds,
      });
      const second = await client.sendDirectMessage(seeded.members.alice, { content: 'Second' });

      const log = fake.dmLog();
      expect(log).toHaveLength(2);
      expect(log[0]).toMatchObject({
        recipientId: seeded.members.alice,
        messageId: first.id,
        content: 'Your restore is done',
        embeds,
      });
      expect(log[1]).toMatchObject({ content: 'Second', embeds: [], channelId: log[0].channelId });
      expect(second.channel_id).toBe(first.channel_id);
      expect(log[0].sentAt).toBeInstanceOf(Date);
    });
  });

  describe('members and bans', () => {
    const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : 1);

    it('lists all 2,502 members of a crowded guild in id order, with their roles, in 3 pages', async () => {
      const seeded = fake.seedGuild({
        name: 'Crowded',
        roles: [{ name: 'Even' }, { name: 'Odd' }],
        members: memberSpecs(2_500, { roles: (index) => [index % 2 === 0 ? 'Even' : 'Odd'] }),
      });

      const members = await client.listMembers(seeded.guildId);

      const live = fake.guild(seeded.guildId).members;
      expect(members).toHaveLength(2_502); // with the owner and the bot
      expect(members.map((member) => member.user.id)).toEqual(live.map((m) => m.user_id).sort(byId));
      const rolesById = new Map(live.map((member) => [member.user_id, member.roles]));
      for (const member of members) expect(member.roles).toEqual(rolesById.get(member.user.id));
      expect(members.find((member) => member.user.username === 'member-2500')).toEqual({
        user: { id: seeded.members['member-2500'], username: 'member-2500', global_name: null, bot: false },
        roles: [seeded.roles.Odd],
        nick: null,
      });
      // 1,000, 1,000, then 502: the short page ends the list.
      expect(requestsTo('GET', `/guilds/${seeded.guildId}/members`).map((r) => r.status)).toEqual([
        200, 200, 200,
      ]);
    });

    it("lists the demo guild's crowd with the roles it holds", async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const members = await client.listMembers(seeded.guildId);
      expect(members).toHaveLength(7 + DEMO_CROWD_SIZE);
      expect(members.find((member) => member.user.id === seeded.members.bob)?.roles).toEqual([
        seeded.roles.Member,
        seeded.roles.Verified,
        seeded.roles.Moderator,
      ]);
      expect(new Set(members.flatMap((member) => member.roles)).size).toBeGreaterThanOrEqual(8);
    });

    it('lists 1,200 bans with their reasons, in id order, in 2 pages', async () => {
      const seeded = fake.seedGuild({
        name: 'Raided',
        bans: banSpecs(1_200, { reason: (index) => (index % 3 === 0 ? null : `raid wave ${index % 3}`) }),
      });

      const bans = await client.listBans(seeded.guildId);

      expect(bans).toHaveLength(1_200);
      expect(bans.map((ban) => ban.user.id)).toEqual(Object.values(seeded.bans).sort(byId));
      expect(bans.slice(0, 3)).toEqual([
        { user: expect.objectContaining({ username: 'banned-0001' }), reason: null },
        { user: expect.objectContaining({ username: 'banned-0002' }), reason: 'raid wave 1' },
        { user: expect.objectContaining({ username: 'banned-0003' }), reason: 'raid wave 2' },
      ]);
      expect(requestsTo('GET', `/guilds/${seeded.guildId}/bans`)).toHaveLength(2);
    });

    it('lifts a ban with the reason in the audit log, after which the ban list no longer has it', async () => {
      const seeded = fake.seedGuild({ name: 'Raided', bans: banSpecs(3, { reason: () => 'raid' }) });
      const lifted = seeded.bans['banned-0002'];

      await client.removeBan(seeded.guildId, lifted, { reason: REASON });

      const left = await client.listBans(seeded.guildId);
      expect(left.map((ban) => ban.user.id)).toEqual(
        [seeded.bans['banned-0001'], seeded.bans['banned-0003']].sort(byId),
      );
      expect(fake.auditLog(seeded.guildId)).toEqual([
        expect.objectContaining({
          action_type: AuditLogEvent.MemberBanRemove,
          target_id: lifted,
          user_id: fake.botUserId,
          reason: REASON,
        }),
      ]);
    });

    it('reports lifting the ban of a user who is not banned as NotFound (Unknown Ban)', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const unbanned = await failureOf(client.removeBan(seeded.guildId, seeded.members.alice));
      expect(unbanned).toMatchObject({
        code: 'NotFound',
        retryable: false,
        details: { status: 404, platform_code: 10026, method: 'DELETE' },
      });
    });

    it('reports a member list refused for the GUILD_MEMBERS intent as PermissionDenied, saying why', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      fake.setMembersIntent(false);

      const refused = await failureOf(client.listMembers(seeded.guildId));

      expect(refused).toMatchObject({
        code: 'PermissionDenied',
        retryable: false,
        details: { status: 403, platform_code: 50001 },
      });
      expect(refused.message).toContain('GUILD_MEMBERS intent');
      // The bans need no intent.
      await expect(client.listBans(seeded.guildId)).resolves.toEqual([]);
    });

    it('answers a hostile member-list query with 400 Invalid Form Body', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const response = await fetch(
        `${apiBaseUrl}/v10/guilds/${seeded.guildId}/members?limit=100000&after=abc`,
        {
          headers: { Authorization: `Bot ${fake.botToken}` },
        },
      );
      const body = (await response.json()) as { code: number; errors: Record<string, unknown> };
      expect(response.status).toBe(400);
      expect(body.code).toBe(50035);
      expect(Object.keys(body.errors).sort()).toEqual(['after', 'limit']);
    });
  });

  describe('failures', () => {
    it('reports an unknown guild, or one the bot left, as GuildNotFound', async () => {
      const unknown = await failureOf(client.getGuildState(UNKNOWN_ID));
      expect(unknown).toMatchObject({
        code: 'GuildNotFound',
        name: 'GuildNotFound',
        retryable: false,
        details: { status: 404, platform_code: 10004 },
      });
      const botless = fake.seedGuild({ name: 'Without the bot', bot: { member: false } });
      await expect(failureOf(client.getGuild(botless.guildId))).resolves.toMatchObject({
        code: 'GuildNotFound',
      });
    });

    it('reports what the bot may not do as PermissionDenied and changes nothing', async () => {
      const weak = fake.seedGuild({
        name: 'Weak bot',
        roles: [{ name: 'Low' }, { name: 'High' }],
        bot: { permissions: P.ManageChannels | P.ViewChannel, rolePosition: 1 },
      });
      const noManageRoles = await failureOf(client.createRole(weak.guildId, { name: 'x' }));
      expect(noManageRoles).toMatchObject({
        code: 'PermissionDenied',
        retryable: false,
        details: { status: 403, platform_code: 50013 },
      });
      await expect(
        failureOf(client.updateGuildSettings(weak.guildId, { name: 'Nope' })),
      ).resolves.toMatchObject({ code: 'PermissionDenied' });
      // A new channel with no overwrites needs MANAGE_CHANNELS only; an edit sending an empty list
      // removes every overwrite, so it needs MANAGE_ROLES as well.
      const plain = await client.createChannel(weak.guildId, {
        name: 'plain',
        type: 0,
        permission_overrides: [],
      });
      await expect(
        failureOf(client.updateChannel(plain.id, { permission_overrides: [] })),
      ).resolves.toMatchObject({ code: 'PermissionDenied', details: { status: 403 } });

      const ranked = fake.seedGuild({
        name: 'Ranked bot',
        roles: [{ name: 'Low' }, { name: 'High' }],
        bot: { permissions: P.ManageRoles | P.ViewChannel, rolePosition: 2 },
      });
      const refusals = await Promise.all(
        [
          client.updateRole(ranked.guildId, ranked.roles.High, { name: 'Higher' }),
          client.deleteRole(ranked.guildId, ranked.botRoleId),
          client.addMemberRole(ranked.guildId, ranked.ownerId, ranked.roles.High),
          client.createRole(ranked.guildId, { name: 'Admin', permissions: P.Administrator.toString() }),
        ].map(failureOf),
      );
      expect(refusals.map((refusal) => refusal.code)).toEqual(Array(4).fill('PermissionDenied'));
      await client.updateRole(ranked.guildId, ranked.roles.Low, { name: 'Lower' });

      expect(fake.guild(weak.guildId)).toMatchObject({ name: 'Weak bot' });
      expect(fake.guild(weak.guildId).roles).toHaveLength(4);
      expect(
        fake
          .guild(ranked.guildId)
          .roles.map((r) => r.name)
          .sort(),
      ).toEqual(['@everyone', 'GuildKeeper', 'High', 'Lower'].sort());
    });

    it('reports a user with closed DMs as DmBlocked and delivers nothing', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const blocked = await failureOf(client.sendDirectMessage(seeded.members.erin, { content: 'hi' }));
      expect(blocked).toMatchObject({
        code: 'DmBlocked',
        retryable: false,
        details: { platform_code: 50007 },
      });

      fake.setDmsClosed(seeded.members.alice, true);
      await expect(
        failureOf(client.sendDirectMessage(seeded.members.alice, { content: 'hi' })),
      ).resolves.toMatchObject({ code: 'DmBlocked' });
      expect(fake.dmLog()).toEqual([]);

      fake.setDmsClosed(seeded.members.alice, false);
      await client.sendDirectMessage(seeded.members.alice, { content: 'hi' });
      expect(fake.dmLog().map((dm) => dm.recipientId)).toEqual([seeded.members.alice]);
    });

    it('reports unknown roles, channels and members as NotFound with the platform code', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const failures = await Promise.all(
        [
          client.updateRole(seeded.guildId, UNKNOWN_ID, { name: 'x' }),
          client.updateChannel(UNKNOWN_ID, { name: 'x' }),
          client.getMember(seeded.guildId, UNKNOWN_ID),
          client.sendDirectMessage(UNKNOWN_ID, { content: 'x' }),
        ].map(failureOf),
      );
      expect(
        failures.map(({ code, retryable, details }) => [
          code,
          retryable,
          details.status,
          details.platform_code,
        ]),
      ).toEqual([
        ['NotFound', false, 404, 10011],
        ['NotFound', false, 404, 10003],
        ['NotFound', false, 404, 10007],
        ['NotFound', false, 404, 10013],
      ]);
    });

    it('reports a body the platform refuses as InvalidRequest', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const empty = await failureOf(client.createChannel(seeded.guildId, { name: '', type: 0 }));
      expect(empty).toMatchObject({ code: 'InvalidRequest', details: { status: 400, platform_code: 50035 } });
      expect(empty.message).toContain('name');
      const nested = await failureOf(
        client.createChannel(seeded.guildId, { name: 'sub', type: 4, parent_id: seeded.channels.Staff }),
      );
      expect(nested).toMatchObject({ code: 'InvalidRequest', details: { platform_code: 50035 } });
      expect(fake.guild(seeded.guildId).channels).toHaveLength(24);
    });

    it('has the client retry 5xx answers, and reports them as PlatformUnavailable when they persist', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const path = `/guilds/${seeded.guildId}`;
      fake.injectFailure({ method: 'GET', path, status: 500, times: 2 });
      await expect(client.getGuild(seeded.guildId)).resolves.toMatchObject({ id: seeded.guildId });
      expect(requestsTo('GET', path).map((r) => r.status)).toEqual([500, 500, 200]);

      fake.reset();
      const again = fake.seedGuild(demoGuildSpec());
      fake.injectFailure({ path: `/guilds/${again.guildId}/channels`, status: 502, times: 100 });
      const unavailable = await failureOf(client.getGuildState(again.guildId));
      expect(unavailable).toMatchObject({
        code: 'PlatformUnavailable',
        retryable: true,
        details: { status: 502 },
      });
      // One attempt and the REST client's three retries.
      expect(requestsTo('GET', `/guilds/${again.guildId}/channels`).map((r) => r.status)).toEqual([
        502, 502, 502, 502,
      ]);
    });

    it('does not retry injected refusals and maps them like real ones', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      fake.injectFailure({ path: `/guilds/${seeded.guildId}/roles`, status: 403, code: 50013 });
      fake.injectFailure({
        method: 'GET',
        path: /^\/guilds\/\d+$/,
        status: 404,
        code: 10004,
        message: 'Unknown Guild',
      });
      await expect(failureOf(client.createRole(seeded.guildId, {}))).resolves.toMatchObject({
        code: 'PermissionDenied',
      });
      await expect(failureOf(client.getGuild(seeded.guildId))).resolves.toMatchObject({
        code: 'GuildNotFound',
      });
      expect(fake.requestLog().map((r) => r.status)).toEqual([403, 404]);
      await expect(client.createRole(seeded.guildId, { name: 'fine' })).resolves.toMatchObject({
        name: 'fine',
      });
    });

    it('reports timeouts after the retries, and an unreachable platform, as PlatformUnavailable', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const impatient = new ChatPlatformClient({ apiBaseUrl, botToken: fake.botToken, timeoutMs: 200 });
      const path = `/guilds/${seeded.guildId}`;
      fake.injectFailure({ method: 'GET', path, status: 503, delayMs: 1_000, times: 4 });
      const timedOut = await failureOf(impatient.getGuild(seeded.guildId));
      expect(timedOut).toMatchObject({
        code: 'PlatformUnavailable',
        retryable: true,
        details: { status: null },
      });
      // The REST client retries a timed-out attempt three times in production; under Jest the abort
      // error comes from another realm, fails its `instanceof Error` check and is not retried, so
      // only the outcome and the first attempt are asserted here.
      await waitFor('the attempt to reach the platform', () => requestsTo('GET', path).length >= 1, {
        timeoutMs: 10_000,
      });

      const nowhere = new ChatPlatformClient({
        apiBaseUrl: `http://127.0.0.1:${await freePort()}/api`,
        botToken: 'x',
      });
      await expect(failureOf(nowhere.getCurrentUser())).resolves.toMatchObject({
        code: 'PlatformUnavailable',
        retryable: true,
      });
    });

    it('reports a wrong token as InvalidRequest on every call', async () => {
      const wrong = new ChatPlatformClient({ apiBaseUrl, botToken: 'not-the-token' });
      for (let attempt = 0; attempt < 2; attempt++) {
        await expect(failureOf(wrong.getCurrentUser())).resolves.toMatchObject({
          code: 'InvalidRequest',
          details: { status: 401, platform_code: 0 },
        });
      }
      expect(requestsTo('GET', '/users/@me').map((r) => r.status)).toEqual([401, 401]);
    });
  });

  describe('limits', () => {
    it('allows at most 250 roles per guild (@everyone included)', async () => {
      const seeded = fake.seedGuild({
        name: 'Crowded',
        roles: Array.from({ length: 247 }, (_, i) => ({ name: `role-${i}` })),
      });
      await client.createRole(seeded.guildId, { name: 'the 250th' });
      const full = await failureOf(client.createRole(seeded.guildId, { name: 'one too many' }));
      expect(full).toMatchObject({ code: 'InvalidRequest', details: { status: 400, platform_code: 30005 } });
      expect(fake.guild(seeded.guildId).roles).toHaveLength(250);
    });

    it('allows at most 500 channels per guild', async () => {
      const seeded = fake.seedGuild({
        name: 'Sprawling',
        channels: Array.from({ length: 499 }, (_, i) => ({ name: `channel-${i}` })),
      });
      await client.createChannel(seeded.guildId, { name: 'the-500th', type: 0 });
      const full = await failureOf(client.createChannel(seeded.guildId, { name: 'one-too-many', type: 2 }));
      expect(full).toMatchObject({ code: 'InvalidRequest', details: { status: 400, platform_code: 30013 } });
      expect(fake.guild(seeded.guildId).channels).toHaveLength(500);
    });
  });

  describe('rate limits', () => {
    const raw = (path: string, token = fake.botToken) =>
      fetch(`${apiBaseUrl}/v10${path}`, { headers: { Authorization: `Bot ${token}` } });

    it("answers 429 with the platform's headers and body to a client that ignores them", async () => {
      fake.setRateLimits({ perRoute: { limit: 2, windowMs: 1_000 } });
      const first = await raw('/users/@me');
      await raw('/users/@me');
      const limited = await raw('/users/@me');

      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('2');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      expect(Number(first.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
      expect(Number(first.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now());
      expect(first.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      // Whole seconds, rounded up, as the platform sends it; the body keeps the fraction.
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
      const body = (await limited.json()) as { message: string; retry_after: number; global: boolean };
      expect(body).toEqual({
        message: 'You are being rate limited.',
        retry_after: expect.any(Number),
        global: false,
      });
      expect(body.retry_after).toBeGreaterThan(0);
      expect(body.retry_after).toBeLessThanOrEqual(1);
    });

    it('queues 20 concurrent writes on a 5-per-second bucket so all succeed without a 429', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      fake.setRateLimits({ perRoute: { limit: 5, windowMs: 1_000 } });
      const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);

      const created = await Promise.all(names.map((name) => client.createRole(seeded.guildId, { name })));

      expect(created.map((role) => role.name).sort()).toEqual([...names].sort());
      expect(
        fake
          .guild(seeded.guildId)
          .roles.map((role) => role.name)
          .filter((name) => name.startsWith('burst-')),
      ).toHaveLength(20);
      const statuses = requestsTo('POST', `/guilds/${seeded.guildId}/roles`).map((r) => r.status);
      expect(statuses).toHaveLength(20);
      expect(statuses.filter((status) => status === 429)).toEqual([]);
    });

    it('waits out the global limit', async () => {
      fake.setRateLimits({ perRoute: 'off', global: { limit: 3, windowMs: 1_000 } });
      const answers = await Promise.all([1, 2, 3, 4].map(() => raw('/users/@me')));
      const limited = answers.find((response) => response.status === 429);
      expect(limited?.headers.get('x-ratelimit-global')).toBe('true');
      expect(limited?.headers.get('x-ratelimit-scope')).toBe('global');
      expect(await limited?.json()).toMatchObject({ global: true });

      fake.setRateLimits({ global: { limit: 3, windowMs: 1_000 } });
      const users = await Promise.all(Array.from({ length: 8 }, () => client.getCurrentUser()));
      expect(users.map((user) => user.id)).toEqual(Array(8).fill(fake.botUserId));
      const fromClient = requestsTo('GET', '/users/@me').slice(4);
      expect(fromClient.filter((r) => r.status === 200)).toHaveLength(8);
      expect(fromClient.some((r) => r.status === 429)).toBe(true);
    });

    it('waits out a forced 429 for its retry_after, then succeeds', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      fake.injectFailure({ method: 'POST', path: /\/roles$/, status: 429, retryAfterSeconds: 0.5 });

      await expect(client.createRole(seeded.guildId, { name: 'patient' })).resolves.toMatchObject({
        name: 'patient',
      });

      const attempts = requestsTo('POST', `/guilds/${seeded.guildId}/roles`);
      expect(attempts.map((r) => r.status)).toEqual([429, 200]);
      expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(500);
    });

    it("waits out a channel's name/topic limit in the sublimit's own queue, then edits", async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const channelId = fake.guild(seeded.guildId).channels.find((c) => c.type === 0)!.id;
      fake.setRateLimits({ channelNameTopic: { limit: 1, windowMs: 1_500 } });

      await client.updateChannel(channelId, { name: 'first' });
      await client.updateChannel(channelId, { topic: 'second' });

      const edits = requestsTo('PATCH', `/channels/${channelId}`);
      expect(edits.map((r) => r.status)).toEqual([200, 429, 200]);
      expect(edits[2].at - edits[0].at).toBeGreaterThanOrEqual(1_400);
      expect(fake.guild(seeded.guildId).channels.find((c) => c.id === channelId)).toMatchObject({
        name: 'first',
        topic: 'second',
      });
    });

    it('fails RateLimited with the wait when a creation quota asks for more than it waits out', async () => {
      const seeded = fake.seedGuild(demoGuildSpec());
      const impatient = new ChatPlatformClient({
        apiBaseUrl,
        botToken: fake.botToken,
        longestRateLimitWaitMs: 1_000,
      });
      fake.setRateLimits({ roleCreations: { limit: 1, windowMs: 30_000 } });

      await impatient.createRole(seeded.guildId, { name: 'within the quota' });
      const limited = await failureOf(impatient.createRole(seeded.guildId, { name: 'past the quota' }));

      expect(limited).toMatchObject({
        code: 'RateLimited',
        retryable: true,
        details: { status: 429, method: 'POST', path: `/api/v10/guilds/${seeded.guildId}/roles` },
      });
      expect(limited.details.retry_after_ms).toBeGreaterThan(28_000);
      expect(limited.details.retry_after_ms).toBeLessThanOrEqual(31_000);
      const attempts = requestsTo('POST', `/guilds/${seeded.guildId}/roles`);
      expect(attempts.map((r) => r.status)).toEqual([200, 429]);
    });

    it('refuses a request without the bot token', async () => {
      const response = await raw('/users/@me', 'wrong');
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    });
  });
});
