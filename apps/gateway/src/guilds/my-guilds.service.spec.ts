import { FakeChatPlatform } from '@lib/sandbox';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { PlatformOAuthClient } from '../auth/platform-oauth.client';
import { Sessions } from '../auth/sessions';
import type { KeyValueStore } from '@lib/key-value';
import { BOT_PERMISSIONS } from '@lib/chat-platform';
import type { GuildRegistryClient, RegistryLookup } from './guild-registry.client';
import { MyGuilds } from './my-guilds.service';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const CLIENT_ID = '900000000000000077';
const CLIENT_SECRET = 'my-guilds-client-secret';
const REDIRECT = 'http://127.0.0.1:9/auth/callback';
const USER = '300000000000000001';

/** Sessions read and write whole records only; the stores' own behaviour is tested in libs/key-value. */
function memoryStore(): KeyValueStore {
  const values = new Map<string, string>();
  return {
    set: (key, value) => Promise.resolve(void values.set(key, value)),
    get: (key) => Promise.resolve(values.get(key) ?? null),
  } as Partial<KeyValueStore> as KeyValueStore;
}

/** Recovery's registry as the lookup route answers it; the platform is the real fake server. */
class Registry {
  registered = new Map<string, string>();
  botPresent = new Set<string>();
  asked: string[][] = [];

  lookup(ids: string[]): Promise<RegistryLookup[]> {
    this.asked.push(ids);
    return Promise.resolve(
      ids.map((id) => ({
        platform_guild_id: id,
        guild_id: this.registered.get(id) ?? null,
        registered: this.registered.has(id),
        bot_present: this.botPresent.has(id),
      })),
    );
  }
}

describe(MyGuilds.name, () => {
  const platform = fakeForSuite(new FakeChatPlatform());
  const registry = new Registry();
  let oauth: PlatformOAuthClient;
  let sessions: Sessions;
  let myGuilds: MyGuilds;

  beforeAll(() => {
    const { url } = platform;
    oauth = new PlatformOAuthClient({
      apiBaseUrl: `${url}/api`,
      oauthBaseUrl: url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT,
    });
    sessions = new Sessions(memoryStore(), { ttlSeconds: 3_600 });
    myGuilds = new MyGuilds(oauth, sessions, registry as unknown as GuildRegistryClient, {
      oauthBaseUrl: url,
      clientId: CLIENT_ID,
    });
  });
  beforeEach(() => {
    platform.registerOAuthApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [REDIRECT] });
    registry.registered.clear();
    registry.botPresent.clear();
    registry.asked = [];
  });

  /** A login as USER through the platform's consent page, as the gateway's callback completes it. */
  async function login() {
    platform.loginAs(USER, 'owner');
    const consent = await fetch(`${oauth.authorizeUrl('state-state-state-state-state-12')}`, {
      redirect: 'manual',
    });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const { profile, access } = await oauth.loginWithCode(code);
    return sessions.open({ user_id: 'user-1', platform_user_id: profile.id }, access);
  }

  it('lists the guilds the user can manage, each registered, with the bot, or without it', async () => {
    const owned = platform.seedGuild({ name: 'Owned', owner: { id: USER } });
    const administered = platform.seedGuild({
      name: 'Administered',
      roles: [{ name: 'Admins', permissions: PermissionFlagsBits.Administrator }],
      members: [{ username: 'owner', id: USER, roles: ['Admins'] }],
    });
    const managedWithoutBot = platform.seedGuild({
      name: 'Bot-less',
      roles: [{ name: 'Managers', permissions: PermissionFlagsBits.ManageGuild }],
      members: [{ username: 'owner', id: USER, roles: ['Managers'] }],
      bot: { member: false },
    });
    platform.seedGuild({
      name: 'Only a member',
      roles: [{ name: 'Mods', permissions: PermissionFlagsBits.ManageMessages }],
      members: [{ username: 'owner', id: USER, roles: ['Mods'] }],
    });
    platform.seedGuild({ name: 'Not in it' });
    registry.registered.set(administered.guildId, '0190a000-0000-7000-8000-000000000001');
    registry.botPresent.add(administered.guildId).add(owned.guildId);

    const { token, session } = await login();
    const { guilds } = await myGuilds.list(session, token);

    expect(guilds).toEqual([
      {
        platform_guild_id: administered.guildId,
        name: 'Administered',
        icon: null,
        owner: false,
        status: 'registered',
        guild_id: '0190a000-0000-7000-8000-000000000001',
        bot_authorize_url: null,
      },
      expect.objectContaining({ name: 'Owned', owner: true, status: 'bot_present', guild_id: null }),
      expect.objectContaining({
        name: 'Bot-less',
        status: 'bot_missing',
        bot_authorize_url: expect.any(String),
      }),
    ]);
    // Recovery is asked about the managed guilds only.
    expect(registry.asked[0].sort()).toEqual(
      [owned.guildId, administered.guildId, managedWithoutBot.guildId].sort(),
    );
    const invite = new URL(guilds[2].bot_authorize_url!);
    expect(invite.origin).toBe(platform.url);
    expect(invite.pathname).toBe('/oauth2/authorize');
    expect(Object.fromEntries(invite.searchParams)).toEqual({
      client_id: CLIENT_ID,
      scope: 'bot applications.commands',
      // ADMINISTRATOR: a restore must recreate roles and overwrites carrying any permission.
      permissions: PermissionFlagsBits.Administrator.toString(),
      guild_id: managedWithoutBot.guildId,
      disable_guild_select: 'true',
    });
    expect(BOT_PERMISSIONS.toString()).toBe(invite.searchParams.get('permissions'));
  });

  it("reuses the platform's list for a while, but asks recovery every time", async () => {
    const guild = platform.seedGuild({ name: 'Owned', owner: { id: USER } });
    const { token, session } = await login();
    await myGuilds.list(session, token);
    registry.botPresent.add(guild.guildId);
    const again = await myGuilds.list(session, token);
    expect(again.guilds.map((entry) => entry.status)).toEqual(['bot_present']);
    const listCalls = platform.requestLog().filter((entry) => entry.route === '/users/@me/guilds');
    expect(listCalls).toHaveLength(1);
    expect(registry.asked).toHaveLength(2);
  });

  it('asks for a new login when the session holds no platform access, or another session’s', async () => {
    const { token, session } = await login();
    await expect(myGuilds.list({ ...session, platform_access: undefined }, token)).rejects.toMatchObject({
      code: 'ErrPlatformAccessExpired',
      status: 401,
    });
    const other = await login();
    await expect(myGuilds.list(session, other.token)).rejects.toMatchObject({ status: 401 });
  });
  it('answers whether the user manages a guild from their own list, read again only for a guild it lacks', async () => {
    const managed = platform.seedGuild({
      name: 'Managed',
      roles: [{ name: 'Managers', permissions: PermissionFlagsBits.ManageGuild }],
      members: [{ username: 'owner', id: USER, roles: ['Managers'] }],
    });
    const memberOnly = platform.seedGuild({ name: 'Member', members: [{ username: 'owner', id: USER }] });
    const stranger = platform.seedGuild({ name: 'Not in it' });
    const { token, session } = await login();
    const before = platform.requestLog().length;

    const answers = [];
    for (const guild of [managed, managed, memberOnly, stranger]) {
      answers.push(await myGuilds.manages(session, token, guild.guildId));
    }

    expect(answers).toEqual([true, true, false, false]);
    // The user's own list with their token, read again for each guild it lacks; nothing of the
    // guilds themselves, nothing with the bot's token.
    const routes = platform
      .requestLog()
      .slice(before)
      .map((entry) => entry.route);
    expect(routes).toEqual(['/users/@me/guilds', '/users/@me/guilds', '/users/@me/guilds']);
  });
});
