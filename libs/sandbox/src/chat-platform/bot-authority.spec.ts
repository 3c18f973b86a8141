import { BOT_PERMISSIONS, LEAST_BOT_PERMISSIONS } from '@lib/chat-platform';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { guildPermissions } from './bot-authority';
import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildSpec, SeededGuild } from './guild-seed';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const STRANGER = '300000000000000099';

/**
 * What the platform refuses a bot installed with the least permissions (LEAST_BOT_PERMISSIONS), on
 * loopback over HTTP: overwrites it may not set (resources/channel "Edit Channel Permissions",
 * topics/permissions "Permission Overwrites"), roles above it, permissions it does not hold, bans.
 */
describe('bot authority', () => {
  const sut = fakeForSuite(new FakeChatPlatform());

  function call(method: string, path: string, body?: object, token = sut.botToken): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, body, { Authorization: `Bot ${token}` });
  }

  const overwrite = (type: 0 | 1, allow: bigint, deny = 0n) => ({
    type,
    allow: allow.toString(),
    deny: deny.toString(),
  });

  /** The bot installed with the least permissions (the owner unticked ADMINISTRATOR on consent). */
  function seed(extra: Partial<GuildSpec> = {}): SeededGuild {
    return sut.seedGuild({
      name: 'Invited',
      bot: { permissions: LEAST_BOT_PERMISSIONS },
      roles: [{ name: 'Low' }, { name: 'High', permissions: P.KickMembers }],
      members: [{ username: 'mia', roles: ['Low'] }],
      channels: [{ name: 'general' }],
      ...extra,
    });
  }

  const refusedAs = (code: number) => ({ body: expect.objectContaining({ code }) });

  it('seeds the bot with exactly the invite’s permissions, its role at the top', () => {
    const seeded = sut.seedGuild({ name: 'As invited' });
    const roles = sut.guild(seeded.guildId).roles;
    const botRole = roles.find((role) => role.id === seeded.botRoleId)!;
    expect(botRole.permissions).toBe(BOT_PERMISSIONS.toString());
    expect(botRole.position).toBe(Math.max(...roles.map((role) => role.position)));
  });

  describe('overwrites', () => {
    it('sets only bits the bot holds, and never MANAGE_ROLES without an overwrite granting it', async () => {
      const seeded = seed();
      const path = `/channels/${seeded.channels.general}/permissions/${seeded.roles.Low}`;
      await expect(call('PUT', path, overwrite(0, P.ViewChannel, P.ManageChannels))).resolves.toMatchObject({
        status: 204,
      });
      await expect(call('PUT', path, overwrite(0, P.MentionEveryone))).resolves.toMatchObject({
        status: 403,
        ...refusedAs(50013),
      });
      // MANAGE_ROLES is held in the guild, but putting it in an overwrite takes more.
      await expect(call('PUT', path, overwrite(0, 0n, P.ManageRoles))).resolves.toMatchObject({
        status: 403,
        ...refusedAs(50013),
      });
      const botPath = `/channels/${seeded.channels.general}/permissions/${seeded.botRoleId}`;
      // Allowing itself MANAGE_ROLES in the channel is itself such an overwrite.
      await expect(call('PUT', botPath, overwrite(0, P.ManageRoles))).resolves.toMatchObject({ status: 403 });
      // The owner may: once it has, the bot holds MANAGE_ROLES through an overwrite of the channel.
      sut.registerBotToken('owner-token', seeded.ownerId);
      await expect(call('PUT', botPath, overwrite(0, P.ManageRoles), 'owner-token')).resolves.toMatchObject({
        status: 204,
      });
      await expect(call('PUT', path, overwrite(0, 0n, P.ManageRoles))).resolves.toMatchObject({
        status: 204,
      });
    });

    it('computes the bot’s permissions in the channel: an overwrite denying it a bit takes that bit away', async () => {
      const seeded = seed({
        channels: [{ name: 'general', overwrites: [{ role: '@everyone', deny: P.ManageChannels }] }],
      });
      const path = `/channels/${seeded.channels.general}/permissions/${seeded.roles.Low}`;
      await expect(call('PUT', path, overwrite(0, P.ManageChannels))).resolves.toMatchObject({
        status: 403,
        ...refusedAs(50013),
      });
      await expect(call('PUT', path, overwrite(0, P.ViewAuditLog))).resolves.toMatchObject({ status: 204 });
    });

    it('refuses every overwrite where the channel denies the bot Manage Permissions', async () => {
      const seeded = seed({
        channels: [{ name: 'general', overwrites: [{ role: '@everyone', deny: P.ManageRoles }] }],
      });
      const path = `/channels/${seeded.channels.general}/permissions/${seeded.roles.Low}`;
      await expect(call('PUT', path, overwrite(0, P.ViewChannel))).resolves.toMatchObject({
        status: 403,
        ...refusedAs(50013),
      });
    });

    it('answers Missing Access in a channel the bot cannot see', async () => {
      const seeded = seed({
        channels: [{ name: 'general', overwrites: [{ role: '@everyone', deny: P.ViewChannel }] }],
      });
      const path = `/channels/${seeded.channels.general}/permissions/${seeded.roles.Low}`;
      await expect(call('PUT', path, overwrite(0, P.ViewChannel))).resolves.toMatchObject({
        status: 403,
        ...refusedAs(50001),
      });
    });

    it('removes only an overwrite whose bits the bot could set', async () => {
      const seeded = seed({
        channels: [
          {
            name: 'general',
            overwrites: [
              { role: 'Low', deny: P.MentionEveryone },
              { role: 'High', allow: P.ViewChannel },
            ],
          },
        ],
      });
      const channel = seeded.channels.general;
      await expect(
        call('DELETE', `/channels/${channel}/permissions/${seeded.roles.Low}`),
      ).resolves.toMatchObject({
        status: 403,
        ...refusedAs(50013),
      });
      await expect(
        call('DELETE', `/channels/${channel}/permissions/${seeded.roles.High}`),
      ).resolves.toMatchObject({
        status: 204,
      });
    });

    it('accepts a member overwrite for a user who is not in the guild', async () => {
      const seeded = seed();
      sut.addUser(STRANGER, 'left-long-ago');
      const put = await call(
        'PUT',
        `/channels/${seeded.channels.general}/permissions/${STRANGER}`,
        overwrite(1, P.ViewChannel),
      );
      expect(put.status).toBe(204);
      const created = await call('POST', `/guilds/${seeded.guildId}/channels`, {
        name: 'private',
        permission_overwrites: [{ id: STRANGER, ...overwrite(1, P.ViewChannel) }],
      });
      expect(created.status).toBe(201);
    });

    it('checks the overwrites of a channel create and of a channel edit, and changes nothing when refused', async () => {
      const seeded = seed();
      const create = await call('POST', `/guilds/${seeded.guildId}/channels`, {
        name: 'staff',
        permission_overwrites: [{ id: seeded.roles.High, ...overwrite(0, P.ManageRoles) }],
      });
      expect(create).toMatchObject({ status: 403, ...refusedAs(50013) });
      const edit = await call('PATCH', `/channels/${seeded.channels.general}`, {
        name: 'renamed',
        permission_overwrites: [{ id: seeded.roles.Low, ...overwrite(0, 0n, P.KickMembers) }],
      });
      expect(edit).toMatchObject({ status: 403, ...refusedAs(50013) });
      const guild = sut.guild(seeded.guildId);
      expect(guild.channels.map((channel) => channel.name)).toEqual(['general']);
      expect(guild.channels[0].permission_overwrites).toEqual([]);
    });
  });

  describe('roles, members and bans', () => {
    it('refuses a role with a permission the bot does not hold, and one above it', async () => {
      const seeded = seed({ bot: { permissions: LEAST_BOT_PERMISSIONS, rolePosition: 1 } });
      await expect(
        call('POST', `/guilds/${seeded.guildId}/roles`, { name: 'mods', permissions: String(P.KickMembers) }),
      ).resolves.toMatchObject({ status: 403, ...refusedAs(50013) });
      await expect(
        call('PATCH', `/guilds/${seeded.guildId}/roles/${seeded.roles.High}`, { name: 'Higher' }),
      ).resolves.toMatchObject({ status: 403, ...refusedAs(50013) });
      await expect(
        call('PUT', `/guilds/${seeded.guildId}/members/${seeded.members.mia}/roles/${seeded.roles.High}`),
      ).resolves.toMatchObject({ status: 403, ...refusedAs(50013) });
      await expect(
        call('POST', `/guilds/${seeded.guildId}/roles`, {
          name: 'viewers',
          permissions: String(P.ViewChannel),
        }),
      ).resolves.toMatchObject({ status: 200 });
    });

    it('reads and lifts bans with BAN_MEMBERS, and refuses a bot without it', async () => {
      const seeded = seed({ bans: [{ username: 'spammer' }] });
      await expect(call('GET', `/guilds/${seeded.guildId}/bans`)).resolves.toMatchObject({ status: 200 });
      const without = seed({
        name: 'Old invite',
        bot: { permissions: LEAST_BOT_PERMISSIONS & ~P.BanMembers },
      });
      await expect(call('GET', `/guilds/${without.guildId}/bans`)).resolves.toMatchObject({
        status: 403,
        ...refusedAs(50013),
      });
      await expect(
        call('DELETE', `/guilds/${seeded.guildId}/bans/${seeded.bans.spammer}`),
      ).resolves.toMatchObject({ status: 204 });
    });
  });
  describe('timeouts', () => {
    const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

    it('times out a member the bot outranks with MODERATE_MEMBERS, who then keeps only viewing and history', async () => {
      const seeded = seed({
        bot: { permissions: LEAST_BOT_PERMISSIONS | P.ModerateMembers },
        roles: [{ name: 'Low', permissions: P.ManageGuild | P.BanMembers }],
      });
      const path = `/guilds/${seeded.guildId}/members/${seeded.members.mia}`;
      const until = inMinutes(10);
      const answer = await call('PATCH', path, { communication_disabled_until: until });
      expect(answer).toMatchObject({ status: 200, body: { communication_disabled_until: until } });
      const member = sut.guild(seeded.guildId).members.find((m) => m.user_id === seeded.members.mia)!;
      expect(guildPermissions(sut.guild(seeded.guildId), member.user_id)).toBe(
        guildPermissions(sut.guild(seeded.guildId), member.user_id) & (P.ViewChannel | P.ReadMessageHistory),
      );
      expect(guildPermissions(sut.guild(seeded.guildId), member.user_id) & P.ManageGuild).toBe(0n);
      await expect(call('PATCH', path, { communication_disabled_until: null })).resolves.toMatchObject({
        status: 200,
        body: { communication_disabled_until: null },
      });
      expect(guildPermissions(sut.guild(seeded.guildId), member.user_id) & P.ManageGuild).toBe(P.ManageGuild);
    });

    it('refuses without MODERATE_MEMBERS, on an administrator or the owner, and past 28 days', async () => {
      const seeded = seed({
        roles: [{ name: 'Low' }, { name: 'Admins', permissions: P.Administrator }],
        members: [
          { username: 'mia', roles: ['Low'] },
          { username: 'ada', roles: ['Admins'] },
        ],
      });
      const member = (id: string) => `/guilds/${seeded.guildId}/members/${id}`;
      const timeout = { communication_disabled_until: inMinutes(10) };
      await expect(call('PATCH', member(seeded.members.mia), timeout)).resolves.toMatchObject(
        refusedAs(50013),
      );
      sut.registerBotToken('owner-token', seeded.ownerId);
      const asOwner = (path: string, body: object) => call('PATCH', path, body, 'owner-token');
      await expect(asOwner(member(seeded.members.ada), timeout)).resolves.toMatchObject(refusedAs(50013));
      await expect(asOwner(member(seeded.ownerId), timeout)).resolves.toMatchObject(refusedAs(50013));
      await expect(
        asOwner(member(seeded.members.mia), { communication_disabled_until: inMinutes(29 * 24 * 60) }),
      ).resolves.toMatchObject({ status: 400 });
      await expect(asOwner(member(seeded.members.mia), timeout)).resolves.toMatchObject({ status: 200 });
    });
  });
});
