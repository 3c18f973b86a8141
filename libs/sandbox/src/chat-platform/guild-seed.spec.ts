import { BOT_PERMISSIONS, shardOf } from '@lib/chat-platform';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { DEMO_CROWD_SIZE, demoGuildSpec } from './demo-guild';
import { banSpecs, memberSpecs, seedGuild } from './guild-seed';
import { PlatformStore } from './platform-store';

function freshStore(): PlatformStore {
  return new PlatformStore({ username: 'GuildKeeper' }, 100);
}

describe(seedGuild.name, () => {
  it('builds the demo guild completely: every field set, ids resolved, positions without gaps', () => {
    const store = freshStore();
    const seeded = seedGuild(store, demoGuildSpec());
    const guild = store.guilds.get(seeded.guildId)!;

    // No field left undefined: the state survives JSON unchanged.
    expect(JSON.parse(JSON.stringify(guild))).toStrictEqual(guild);
    expect(guild.roles.map((role) => role.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(guild.roles[0]).toMatchObject({ id: seeded.guildId, name: '@everyone' });
    expect(guild.roles[9]).toMatchObject({
      id: seeded.botRoleId,
      managed: true,
      // The invite's permissions, as a real install has.
      permissions: BOT_PERMISSIONS.toString(),
      tags: { bot_id: store.bot.id },
    });
    expect(guild.channels.filter((channel) => channel.type === 4)).toHaveLength(4);
    expect(guild.channels.filter((channel) => channel.type !== 4)).toHaveLength(20);
    expect(guild.channels.find((channel) => channel.id === seeded.channels.memes)).toMatchObject({
      parent_id: seeded.channels.Community,
      nsfw: true,
      rate_limit_per_user: 30,
      bitrate: null,
    });
    const modLog = guild.channels.find((channel) => channel.id === seeded.channels['mod-log'])!;
    expect(modLog.permission_overwrites).toContainEqual({
      id: seeded.members.alice,
      type: 1,
      allow: (P.ViewChannel | P.SendMessages).toString(),
      deny: '0',
    });
    expect(guild.afk_channel_id).toBe(seeded.channels.AFK);
    expect(guild.members.map((member) => member.user_id)).toEqual(
      expect.arrayContaining([seeded.ownerId, store.bot.id, seeded.members.bob]),
    );
    expect(store.dmsClosed.has(seeded.members.erin)).toBe(true);
  });

  it("places the bot's role where asked and can leave the bot out", () => {
    const store = freshStore();
    const seeded = seedGuild(store, {
      name: 'g',
      roles: [{ name: 'Low' }, { name: 'High' }],
      bot: { rolePosition: 2, member: false },
    });
    const guild = store.guilds.get(seeded.guildId)!;
    expect(guild.roles.map((role) => [role.name, role.position])).toEqual([
      ['@everyone', 0],
      ['Low', 1],
      ['GuildKeeper', 2],
      ['High', 3],
    ]);
    expect(guild.members.map((member) => member.user_id)).toEqual([seeded.ownerId]);
  });

  it('reuses a user across guilds by id and refuses names it does not know', () => {
    const store = freshStore();
    const first = seedGuild(store, { name: 'a', owner: { id: '111111111111111111', username: 'o' } });
    const second = seedGuild(store, { name: 'b', owner: { id: '111111111111111111' } });
    expect(second.ownerId).toBe(first.ownerId);
    expect(() => seedGuild(store, { name: 'c', members: [{ username: 'x', roles: ['Nope'] }] })).toThrow(
      'unknown role "Nope"',
    );
  });

  it('seeds thousands of members with their roles, and bans with their reasons, in one go', () => {
    const store = freshStore();
    const started = Date.now();
    const seeded = seedGuild(store, {
      name: 'Crowd',
      roles: [{ name: 'Even' }, { name: 'Odd' }],
      members: memberSpecs(5_000, { roles: (index) => [index % 2 === 0 ? 'Even' : 'Odd'] }),
      bans: banSpecs(3, { reason: (index) => (index === 0 ? null : `raid ${index}`) }),
    });
    const guild = store.guilds.get(seeded.guildId)!;

    expect(Date.now() - started).toBeLessThan(2_000);
    expect(guild.members).toHaveLength(5_002); // with the owner and the bot, who is not named
    expect(Object.keys(seeded.members).slice(1, 3)).toEqual(['member-0001', 'member-0002']);
    const roleOf = (username: string) =>
      guild.members.find((member) => member.user_id === seeded.members[username])?.roles;
    expect([roleOf('member-0001'), roleOf('member-5000')]).toEqual([[seeded.roles.Even], [seeded.roles.Odd]]);
    expect([...store.bans.get(seeded.guildId)!]).toEqual([
      [seeded.bans['banned-0001'], null],
      [seeded.bans['banned-0002'], 'raid 1'],
      [seeded.bans['banned-0003'], 'raid 2'],
    ]);
    expect(store.users.get(seeded.bans['banned-0002'])).toMatchObject({ username: 'banned-0002' });
  });

  it('refuses to ban one of its own members (the same user id)', () => {
    const id = '300000000000000001';
    expect(() =>
      seedGuild(freshStore(), { name: 'g', members: [{ username: 'x', id }], bans: [{ username: 'x', id }] }),
    ).toThrow('bans its member "x"');
  });

  it('gives the demo guild a crowd holding roles the bot can give back, every role held by someone', () => {
    const store = freshStore();
    const seeded = seedGuild(store, demoGuildSpec());
    const guild = store.guilds.get(seeded.guildId)!;
    const crowd = guild.members.filter((member) =>
      store.users.get(member.user_id)!.username.startsWith('member-'),
    );
    const bot = guild.roles.find((role) => role.id === seeded.botRoleId)!;

    expect(crowd).toHaveLength(DEMO_CROWD_SIZE);
    expect(guild.members).toHaveLength(7 + DEMO_CROWD_SIZE);
    const held = new Set(crowd.flatMap((member) => member.roles));
    for (const role of guild.roles.filter((r) => held.has(r.id))) {
      expect([role.name, role.managed, role.position < bot.position]).toEqual([role.name, false, true]);
    }
    const names = guild.roles.filter((role) => held.has(role.id)).map((role) => role.name);
    expect(names.sort()).toEqual(
      ['Admin', 'Event Host', 'Helper', 'Member', 'Moderator', 'Muted', 'VIP', 'Verified'].sort(),
    );
    // Deterministic: the same crowd every time.
    const again = seedGuild(freshStore(), demoGuildSpec());
    expect(Object.keys(again.members)).toEqual(Object.keys(seeded.members));
  });

  it('spreads guilds seeded in a row over the shards, even within one millisecond', () => {
    jest.useFakeTimers({ now: 1_750_000_000_000 });
    try {
      const store = freshStore();
      const guildIds = Array.from({ length: 16 }, (_, i) => seedGuild(store, { name: `Guild ${i}` }).guildId);

      expect(guildIds.map((id) => shardOf(id, 8))).toEqual(
        [...Array(8).keys(), ...Array(8).keys()].map((shard) => (shard + shardOf(guildIds[0], 8)) % 8),
      );
      for (let i = 1; i < guildIds.length; i++)
        expect(BigInt(guildIds[i])).toBeGreaterThan(BigInt(guildIds[i - 1]));
    } finally {
      jest.useRealTimers();
    }
  });
});
