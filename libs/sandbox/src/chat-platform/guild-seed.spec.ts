import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { demoGuildSpec } from './demo-guild';
import { seedGuild } from './guild-seed';
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
      permissions: P.Administrator.toString(),
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
});
