import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { FakeChatPlatform } from './fake-chat-platform';
import { type SeededGuild, banSpecs, memberSpecs } from './guild-seed';
import { type Json, type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const MOD = '200000000000000004';
const MOD_TOKEN = 'mod-bot-token';

/** The member list and the ban list, paged by user id as the platform pages them, on loopback. */
describe(`${FakeChatPlatform.name} member and ban lists`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  beforeEach(() => {
    seeded = sut.seedGuild({
      name: 'Listed',
      roles: [{ name: 'Member' }, { name: 'Moderator', permissions: P.KickMembers }],
      members: [
        { username: 'mod', id: MOD, roles: ['Moderator'] },
        ...memberSpecs(20, { roles: () => ['Member'] }),
      ],
      bans: banSpecs(5, { reason: (index) => `reason ${index}` }),
    });
    sut.registerBotToken(MOD_TOKEN, MOD);
  });

  const get = (path: string, token = sut.botToken): Promise<JsonReply> =>
    sendJson(`${sut.url}/api/v10${path}`, 'GET', undefined, { Authorization: `Bot ${token}` });
  const ids = (reply: JsonReply) => (reply.body as unknown as { user: Json }[]).map((item) => item.user.id);
  const sortedIds = (values: string[]) => [...values].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));

  it('lists one member by default, then pages by user id after the one given', async () => {
    const all = sortedIds(sut.guild(seeded.guildId).members.map((member) => member.user_id));

    const first = await get(`/guilds/${seeded.guildId}/members`);
    const next = await get(`/guilds/${seeded.guildId}/members?limit=5&after=${all[0]}`);
    const rest = await get(`/guilds/${seeded.guildId}/members?limit=1000&after=${all[5]}`);

    expect(first.status).toBe(200);
    expect(ids(first)).toEqual([all[0]]);
    expect(ids(next)).toEqual(all.slice(1, 6));
    expect(ids(rest)).toEqual(all.slice(6));
    expect((rest.body as unknown as Json[])[0]).toMatchObject({
      roles: expect.any(Array),
      joined_at: expect.any(String),
    });
  });

  it('refuses the member list, as Missing Access, while the GUILD_MEMBERS intent is off', async () => {
    sut.setMembersIntent(false);
    expect(await get(`/guilds/${seeded.guildId}/members?limit=10`)).toEqual({
      status: 403,
      body: { message: 'Missing Access', code: 50001 },
    });
    // The intent belongs to each bot's application; another bot keeps its own.
    expect((await get(`/guilds/${seeded.guildId}/members`, MOD_TOKEN)).status).toBe(200);
    // Single members are not privileged.
    expect((await get(`/guilds/${seeded.guildId}/members/${MOD}`)).status).toBe(200);

    sut.setMembersIntent(true);
    expect((await get(`/guilds/${seeded.guildId}/members?limit=10`)).status).toBe(200);
    sut.setMembersIntent(false);
    sut.reset();
    const again = sut.seedGuild({ name: 'After reset' });
    expect((await get(`/guilds/${again.guildId}/members`)).status).toBe(200);
  });

  it('answers 400 Invalid Form Body to a limit out of bounds or an id that is not one', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=100000', 'limit=ten', 'after=abc', 'after=-1']) {
      const refused = await get(`/guilds/${seeded.guildId}/members?${query}`);
      expect([query, refused.status, refused.body.code]).toEqual([query, 400, 50035]);
    }
    const both = await get(`/guilds/${seeded.guildId}/members?limit=100000&after=abc`);
    expect(Object.keys(both.body.errors as Json).sort()).toEqual(['after', 'limit']);
    for (const query of ['limit=0', 'limit=1001', 'before=x', 'after=1.5']) {
      expect((await get(`/guilds/${seeded.guildId}/bans?${query}`)).status).toBe(400);
    }
  });

  it('lists the bans with their reasons by user id, up to 1000 by default, before or after an id', async () => {
    const banned = sortedIds(Object.values(seeded.bans));

    const all = await get(`/guilds/${seeded.guildId}/bans`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual(
      banned.map((id) => ({
        reason: expect.stringMatching(/^reason \d$/),
        user: expect.objectContaining({ id, username: expect.stringMatching(/^banned-/) }),
      })),
    );
    expect((all.body as unknown as Json[])[0].reason).toBe('reason 0');
    expect(ids(await get(`/guilds/${seeded.guildId}/bans?limit=2&after=${banned[0]}`))).toEqual(
      banned.slice(1, 3),
    );
    // `before` alone gives the page just before it.
    expect(ids(await get(`/guilds/${seeded.guildId}/bans?limit=2&before=${banned[4]}`))).toEqual(
      banned.slice(2, 4),
    );
  });

  it('lists bans only for a bot holding BAN_MEMBERS', async () => {
    expect((await get(`/guilds/${seeded.guildId}/bans`, MOD_TOKEN)).body).toMatchObject({ code: 50013 });
  });

  it('buckets the lists per guild, as the other guild routes are', async () => {
    const other = sut.seedGuild({ name: 'Other' });
    const bucketOf = async (path: string) => {
      const response = await fetch(`${sut.url}/api/v10${path}`, {
        headers: { Authorization: `Bot ${sut.botToken}` },
      });
      return [response.headers.get('x-ratelimit-bucket'), response.headers.get('x-ratelimit-remaining')];
    };

    const [membersBucket, firstLeft] = await bucketOf(`/guilds/${seeded.guildId}/members`);
    const [, secondLeft] = await bucketOf(`/guilds/${seeded.guildId}/members`);
    const [, otherGuildLeft] = await bucketOf(`/guilds/${other.guildId}/members`);
    const [bansBucket] = await bucketOf(`/guilds/${seeded.guildId}/bans`);

    expect(membersBucket).toMatch(/^[0-9a-f]{32}$/);
    expect([firstLeft, secondLeft, otherGuildLeft]).toEqual(['9', '8', '9']);
    expect(bansBucket).not.toBe(membersBucket);
  });
});
