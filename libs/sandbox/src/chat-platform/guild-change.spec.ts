import { GuildWatch } from './guild-change';
import { seedGuild } from './guild-seed';
import { PlatformStore } from './platform-store';

function guildWithMembers() {
  const store = new PlatformStore({ username: 'GuildKeeper' }, 100);
  const seeded = seedGuild(store, {
    name: 'g',
    roles: [{ name: 'A' }],
    members: [{ username: 'ann' }, { username: 'ben' }],
  });
  return { guild: store.guilds.get(seeded.guildId)!, seeded };
}

describe(GuildWatch.name, () => {
  it('reports the watched member only, and its change as audited', () => {
    const { guild, seeded } = guildWithMembers();
    const watch = new GuildWatch(guild, [{ member: seeded.members.ann }]);
    for (const member of guild.members) member.roles = [seeded.roles.A];

    const changes = watch.changes([seeded.members.ann]);

    expect(changes).toEqual([
      {
        kind: 'member',
        guildId: guild.id,
        before: expect.objectContaining({ user_id: seeded.members.ann, roles: [] }),
        after: expect.objectContaining({ user_id: seeded.members.ann, roles: [seeded.roles.A] }),
        audited: true,
      },
    ]);
  });

  it('reports a watched member who left with no after, and nothing when nothing changed', () => {
    const { guild, seeded } = guildWithMembers();
    const unchanged = new GuildWatch(guild, [{ member: seeded.members.ben }]);
    expect(unchanged.changes([])).toEqual([]);

    const watch = new GuildWatch(guild, [{ member: seeded.members.ben }]);
    guild.members = guild.members.filter((member) => member.user_id !== seeded.members.ben);
    expect(watch.changes([seeded.members.ben])).toEqual([
      expect.objectContaining({ kind: 'member', after: null, audited: true }),
    ]);
  });
});
