import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import { FakeChatPlatform } from './fake-chat-platform';
import type { SeededGuild } from './guild-seed';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const OWNER = '200000000000000001';
const RAIDER = '200000000000000002';
const ALICE = '200000000000000003';
const BOB = '200000000000000004';
const MOD = '200000000000000005';
const NEW_BOT = '200000000000000009';
const RAIDER_TOKEN = 'raider-bot-token';
const MOD_TOKEN = 'mod-bot-token';

/**
 * What a raider can destroy beyond channels, roles, bans and kicks, with the audit-log entries the
 * platform writes for it: prune, bulk ban, webhooks, emojis and stickers, bots added, the vanity URL.
 */
describe(`${FakeChatPlatform.name} raid actions`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  beforeEach(() => {
    seeded = sut.seedGuild({
      name: 'Raided',
      owner: { id: OWNER, username: 'owner' },
      roles: [
        { name: 'Member', permissions: P.ViewChannel },
        { name: 'Moderator', permissions: P.KickMembers },
        { name: 'Raider', permissions: P.Administrator },
      ],
      channels: [{ name: 'general' }],
      members: [
        { username: 'raider', id: RAIDER, roles: ['Raider'] },
        { username: 'alice', id: ALICE, roles: [] },
        { username: 'bob', id: BOB, roles: ['Member'] },
        { username: 'mod', id: MOD, roles: ['Moderator'] },
      ],
    });
    sut.registerBotToken(RAIDER_TOKEN, RAIDER);
    sut.registerBotToken(MOD_TOKEN, MOD);
  });

  function call(
    method: string,
    path: string,
    options: { token?: string; body?: unknown } = {},
  ): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, options.body, {
      Authorization: `Bot ${options.token ?? RAIDER_TOKEN}`,
    });
  }

  const entries = (type: AuditLogEvent) =>
    sut.auditLog(seeded.guildId).filter((entry) => entry.action_type === type);
  const memberIds = () => sut.guild(seeded.guildId).members.map((member) => member.user_id);

  describe('prune', () => {
    it('counts, then removes the members without roles (or with only the included ones), in one MEMBER_PRUNE entry', async () => {
      const { guildId, roles } = seeded;
      expect((await call('GET', `/guilds/${guildId}/prune?days=1`)).body).toEqual({ pruned: 1 });
      const pruned = await call('POST', `/guilds/${guildId}/prune`, {
        body: { days: 3, include_roles: [roles.Member] },
      });
      expect(pruned).toMatchObject({ status: 200, body: { pruned: 2 } });
      expect(memberIds()).not.toContain(ALICE);
      expect(memberIds()).not.toContain(BOB);
      expect(memberIds()).toEqual(expect.arrayContaining([OWNER, RAIDER, MOD, sut.botUserId]));
      expect(entries(AuditLogEvent.MemberPrune)).toEqual([
        expect.objectContaining({
          user_id: RAIDER,
          target_id: null,
          options: { delete_member_days: '3', members_removed: '2' },
        }),
      ]);
      expect(entries(AuditLogEvent.MemberKick)).toEqual([]);
    });

    it('answers pruned null when not asked to count, and needs Kick Members and Manage Server', async () => {
      const { guildId } = seeded;
      expect((await call('POST', `/guilds/${guildId}/prune`, { token: MOD_TOKEN })).status).toBe(403);
      expect((await call('POST', `/guilds/${guildId}/prune`, { body: { days: 31 } })).status).toBe(400);
      const quiet = await call('POST', `/guilds/${guildId}/prune`, { body: { compute_prune_count: false } });
      expect(quiet.body).toEqual({ pruned: null });
    });
  });

  describe('bulk ban', () => {
    it('bans each user it can, one MEMBER_BAN_ADD entry per ban, and names those it could not', async () => {
      const { guildId } = seeded;
      const answer = await call('POST', `/guilds/${guildId}/bulk-ban`, {
        body: { user_ids: [ALICE, BOB, OWNER], delete_message_seconds: 0 },
      });
      expect(answer).toMatchObject({
        status: 200,
        body: { banned_users: [ALICE, BOB], failed_users: [OWNER] },
      });
      expect(entries(AuditLogEvent.MemberBanAdd).map((entry) => [entry.user_id, entry.target_id])).toEqual([
        [RAIDER, ALICE],
        [RAIDER, BOB],
      ]);
      expect(memberIds()).not.toContain(ALICE);
    });

    it('refuses more than 200 users, and answers 500000 when it banned nobody', async () => {
      const { guildId } = seeded;
      const many = Array.from({ length: 201 }, (_, i) => `30000000000000${String(i).padStart(4, '0')}`);
      expect((await call('POST', `/guilds/${guildId}/bulk-ban`, { body: { user_ids: many } })).status).toBe(
        400,
      );
      const none = await call('POST', `/guilds/${guildId}/bulk-ban`, { body: { user_ids: [OWNER] } });
      expect(none).toMatchObject({ status: 500, body: { code: 500000 } });
    });
  });

  it('creates a webhook, with a WEBHOOK_CREATE entry, for a caller with Manage Webhooks', async () => {
    const channelId = seeded.channels.general;
    const created = await call('POST', `/channels/${channelId}/webhooks`, { body: { name: 'spam' } });
    expect(created).toMatchObject({
      status: 200,
      body: { type: 1, name: 'spam', channel_id: channelId, guild_id: seeded.guildId, application_id: null },
    });
    expect(typeof created.body.token).toBe('string');
    expect(entries(AuditLogEvent.WebhookCreate)).toEqual([
      expect.objectContaining({
        user_id: RAIDER,
        target_id: created.body.id,
        changes: [
          { key: 'type', new_value: 1 },
          { key: 'name', new_value: 'spam' },
          { key: 'channel_id', new_value: channelId },
        ],
      }),
    ]);
    expect(
      (await call('POST', `/channels/${channelId}/webhooks`, { token: MOD_TOKEN, body: { name: 'x' } }))
        .status,
    ).toBe(403);
    expect(
      (await call('POST', `/channels/${channelId}/webhooks`, { body: { name: 'my discord hook' } })).status,
    ).toBe(400);
  });

  it('deletes emojis and stickers with EMOJI_DELETE and STICKER_DELETE entries holding the old values', async () => {
    const { guildId } = seeded;
    const emoji = sut.addEmoji(guildId, 'party');
    const sticker = sut.addSticker(guildId, 'wave');
    expect((await call('GET', `/guilds/${guildId}/emojis`)).body).toEqual([
      expect.objectContaining({ id: emoji, name: 'party', roles: [], managed: false }),
    ]);
    expect((await call('DELETE', `/guilds/${guildId}/emojis/${emoji}`)).status).toBe(204);
    expect((await call('DELETE', `/guilds/${guildId}/stickers/${sticker}`)).status).toBe(204);
    expect((await call('DELETE', `/guilds/${guildId}/emojis/${emoji}`)).body).toMatchObject({ code: 10014 });
    expect((await call('GET', `/guilds/${guildId}/stickers`)).body).toEqual([]);
    expect(entries(AuditLogEvent.EmojiDelete)).toEqual([
      expect.objectContaining({
        user_id: RAIDER,
        target_id: emoji,
        changes: [{ key: 'name', old_value: 'party' }],
      }),
    ]);
    expect(entries(AuditLogEvent.StickerDelete)).toEqual([
      expect.objectContaining({
        target_id: sticker,
        changes: expect.arrayContaining([{ key: 'name', old_value: 'wave' }]),
      }),
    ]);
  });

  it('adds a bot with BOT_ADD and changes the vanity URL with a GUILD_UPDATE entry, in the acting user’s name', () => {
    const { guildId } = seeded;
    sut.addBot(guildId, NEW_BOT, RAIDER);
    sut.changeVanityUrl(guildId, 'stolen', RAIDER);
    expect(memberIds()).toContain(NEW_BOT);
    expect(entries(AuditLogEvent.BotAdd)).toEqual([
      expect.objectContaining({ user_id: RAIDER, target_id: NEW_BOT }),
    ]);
    expect(entries(AuditLogEvent.GuildUpdate)).toEqual([
      expect.objectContaining({
        user_id: RAIDER,
        changes: [{ key: 'vanity_url_code', new_value: 'stolen' }],
      }),
    ]);
    expect(() => sut.addBot(guildId, '200000000000000010', MOD)).toThrow(/Manage Server/);
  });
});
