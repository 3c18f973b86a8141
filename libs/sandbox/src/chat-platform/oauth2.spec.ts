import { PermissionFlagsBits } from 'discord-api-types/v10';
import { DEMO_CROWD_SIZE, demoGuildSpec } from './demo-guild';
import { FakeChatPlatform } from './fake-chat-platform';
import { readJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const CLIENT_ID = '900000000000000001';
const CLIENT_SECRET = 'client-secret_0123456789';
// Never contacted: the tests read the redirects without following them.
const REDIRECT = 'http://127.0.0.1:9/auth/callback';
const OTHER_REDIRECT = 'http://127.0.0.1:9/auth/other-callback';
const USER = '300000000000000042';

const ALL_BITS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** "Login with ..." on loopback, driven with plain fetch as a browser and a backend would. */
describe(FakeChatPlatform.name, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  const api = () => `${sut.url}/api/v10`;

  beforeEach(() => {
    sut.registerOAuthApp({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [REDIRECT, OTHER_REDIRECT],
    });
  });

  /** The browser at the consent page; `undefined` leaves a parameter out. */
  async function authorize(overrides: Record<string, string | undefined> = {}) {
    const params = {
      response_type: 'code',
      client_id: CLIENT_ID,
      scope: 'identify',
      redirect_uri: REDIRECT,
      state: 'state-1',
      prompt: 'none',
      ...overrides,
    };
    const query = new URLSearchParams(
      Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const response = await fetch(`${sut.url}/oauth2/authorize?${query.toString()}`, { redirect: 'manual' });
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location === null ? null : new URL(location),
      contentType: response.headers.get('content-type'),
      text: await response.text(),
    };
  }

  async function codeFor(redirectUri = REDIRECT): Promise<string> {
    const { status, location } = await authorize({ redirect_uri: redirectUri });
    const code = location?.searchParams.get('code');
    if (status !== 302 || !code) throw new Error(`no code: ${status} ${String(location)}`);
    return code;
  }

  async function token(fields: Record<string, string>, authorization?: string) {
    const response = await fetch(`${api()}/oauth2/token`, {
      method: 'POST',
      headers: authorization ? { Authorization: authorization } : {},
      body: new URLSearchParams(fields),
    });
    return readJson(response);
  }

  const exchange = (code: string, redirectUri = REDIRECT, secret = CLIENT_SECRET) =>
    token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }, basic(CLIENT_ID, secret));

  async function get(path: string, authorization: string) {
    const response = await fetch(`${api()}${path}`, { headers: { Authorization: authorization } });
    return { ...(await readJson(response)), headers: response.headers };
  }

  it('runs the authorization-code grant end to end: consent, code, token, the user behind it', async () => {
    sut.loginAs(USER, 'alice');

    const consent = await authorize();
    expect(consent.status).toBe(302);
    expect(consent.location!.origin + consent.location!.pathname).toBe(REDIRECT);
    expect([...consent.location!.searchParams.keys()]).toEqual(['code', 'state']);

    const exchanged = await exchange(consent.location!.searchParams.get('code')!);
    expect(exchanged).toEqual({
      status: 200,
      body: {
        token_type: 'Bearer',
        access_token: expect.stringMatching(/^[\w-]{32}$/),
        expires_in: 604800,
        refresh_token: expect.stringMatching(/^[\w-]{32}$/),
        scope: 'identify',
      },
    });

    const me = await get('/users/@me', `Bearer ${exchanged.body.access_token as string}`);
    expect(me).toMatchObject({ status: 200 });
    expect(me.body).toEqual({
      id: USER,
      username: 'alice',
      global_name: null,
      discriminator: '0',
      avatar: null,
      public_flags: 0,
      flags: 0,
      primary_guild: null,
      // The `identify` scope's own fields; `email` and `verified` would need the `email` scope.
      mfa_enabled: false,
      locale: 'en-US',
    });
    // The bot's token still answers the bot.
    expect((await get('/users/@me', `Bot ${sut.botToken}`)).body).toMatchObject({
      id: sut.botUserId,
      bot: true,
    });

    expect(sut.requestLog().map(({ method, path, route, status }) => [method, path, route, status])).toEqual([
      ['GET', '/oauth2/authorize', '/oauth2/authorize', 302],
      ['POST', '/oauth2/token', '/oauth2/token', 200],
      ['GET', '/users/@me', '/users/@me', 200],
      ['GET', '/users/@me', '/users/@me', 200],
    ]);
  });

  it('takes the client credentials as form fields too', async () => {
    sut.loginAs(USER);
    const exchanged = await token({
      grant_type: 'authorization_code',
      code: await codeFor(),
      redirect_uri: REDIRECT,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect(exchanged).toMatchObject({ status: 200, body: { token_type: 'Bearer', scope: 'identify' } });
  });

  it('echoes state exactly, leaves it out when none was sent, and keeps the redirect URI query', async () => {
    const withQuery = 'http://127.0.0.1:9/auth/callback?from=dashboard';
    sut.registerOAuthApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [withQuery] });
    sut.loginAs(USER);
    const state = 'a b+c&d=é/%25?#';

    const echoed = await authorize({ redirect_uri: withQuery, state });
    expect(echoed.location!.searchParams.get('state')).toBe(state);
    expect(echoed.location!.searchParams.get('from')).toBe('dashboard');

    const stateless = await authorize({ redirect_uri: withQuery, state: undefined });
    expect(stateless.status).toBe(302);
    expect(stateless.location!.searchParams.has('state')).toBe(false);
    expect(stateless.location!.searchParams.has('code')).toBe(true);
  });

  it('takes a code once', async () => {
    sut.loginAs(USER);
    const code = await codeFor();
    expect((await exchange(code)).status).toBe(200);
    expect(await exchange(code)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid "code" in request.' },
    });
    expect(await exchange('never-issued')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a code with another redirect URI than it was issued for', async () => {
    sut.loginAs(USER);
    const code = await codeFor(REDIRECT);
    expect(await exchange(code, OTHER_REDIRECT)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' },
    });
  });

  it('refuses a wrong client secret, an unknown client and no credentials with invalid_client', async () => {
    sut.loginAs(USER);
    const code = await codeFor();
    expect(await exchange(code, REDIRECT, 'wrong-secret')).toEqual({
      status: 401,
      body: { error: 'invalid_client' },
    });
    const fields = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT };
    expect((await token(fields, basic('900000000000000009', CLIENT_SECRET))).status).toBe(401);
    expect((await token(fields)).body).toEqual({ error: 'invalid_client' });
  });

  it('answers unsupported_grant_type to another grant or a body that is not a form', async () => {
    expect(await token({ grant_type: 'password' }, basic(CLIENT_ID, CLIENT_SECRET))).toEqual({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
    const json = await fetch(`${api()}/oauth2/token`, {
      method: 'POST',
      headers: { Authorization: basic(CLIENT_ID, CLIENT_SECRET), 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT }),
    });
    expect([json.status, await json.json()]).toEqual([400, { error: 'unsupported_grant_type' }]);
    expect(
      await token(
        { grant_type: 'authorization_code', redirect_uri: REDIRECT },
        basic(CLIENT_ID, CLIENT_SECRET),
      ),
    ).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'Missing "code" in request.' },
    });
  });

  it('redirects with access_denied when the user refuses, or nobody is signed in', async () => {
    const denied = {
      error: 'access_denied',
      error_description: 'The resource owner or authorization server denied the request',
      state: 'state-1',
    };
    const answer = async () => {
      const { status, location } = await authorize();
      return {
        status,
        target: location!.origin + location!.pathname,
        ...Object.fromEntries(location!.searchParams),
      };
    };

    expect(await answer()).toEqual({ status: 302, target: REDIRECT, ...denied });

    sut.loginAs(USER);
    sut.denyNextAuthorization();
    expect(await answer()).toEqual({ status: 302, target: REDIRECT, ...denied });
    // The refusal was for that one consent.
    expect(await answer()).toMatchObject({ status: 302, code: expect.any(String), state: 'state-1' });

    sut.logout();
    expect(await answer()).toEqual({ status: 302, target: REDIRECT, ...denied });
  });

  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
    sut.loginAs(USER);
    for (const [overrides, text] of [
      [{ redirect_uri: 'http://127.0.0.1:9/elsewhere' }, 'Invalid OAuth2 redirect_uri'],
      [{ redirect_uri: `${REDIRECT}/` }, 'Invalid OAuth2 redirect_uri'],
      [{ redirect_uri: undefined }, 'Invalid OAuth2 redirect_uri'],
      [{ client_id: '900000000000000009' }, 'Unknown Application'],
      [{ client_id: undefined }, 'Unknown Application'],
    ] as const) {
      expect(await authorize(overrides)).toEqual({
        status: 400,
        location: null,
        contentType: 'text/plain; charset=utf-8',
        text,
      });
    }
  });

  it('redirects with an error for a scope without identify or another response type', async () => {
    sut.loginAs(USER);
    const scope = await authorize({ scope: 'guilds' });
    expect(scope.location!.searchParams.get('error')).toBe('invalid_scope');
    const implicit = await authorize({ response_type: 'token' });
    expect(implicit.location!.searchParams.get('error')).toBe('unsupported_response_type');
    expect([scope.location!.searchParams.has('code'), implicit.location!.searchParams.has('code')]).toEqual([
      false,
      false,
    ]);
  });

  it("answers 401 to a user's token on the bot's routes, and to an unknown token", async () => {
    const seeded = sut.seedGuild(demoGuildSpec());
    sut.loginAs(seeded.members.alice);
    const { body } = await exchange(await codeFor());
    const bearer = `Bearer ${body.access_token as string}`;
    const unauthorized = { message: '401: Unauthorized', code: 0 };

    expect(await get(`/guilds/${seeded.guildId}/channels`, bearer)).toMatchObject({
      status: 401,
      body: unauthorized,
    });
    const dm = await fetch(`${api()}/users/@me/channels`, {
      method: 'POST',
      headers: { Authorization: bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient_id: seeded.members.bob }),
    });
    expect([dm.status, await dm.json()]).toEqual([401, unauthorized]);
    expect(await get('/users/@me', 'Bearer not-a-token')).toMatchObject({ status: 401, body: unauthorized });
    expect(sut.dmChannelOf(seeded.members.bob)).toBeUndefined();
    expect(await get(`/guilds/${seeded.guildId}/channels`, `Bot ${sut.botToken}`)).toMatchObject({
      status: 200,
    });
  });

  it("lists the guilds of a token granted `guilds`, with the user's own permissions as a string", async () => {
    const demo = sut.seedGuild(demoGuildSpec());
    const elsewhere = sut.seedGuild({ name: 'Without the bot', bot: { member: false } });
    sut.mutate(elsewhere.guildId, (guild) => {
      guild.members.push({
        user_id: demo.members.alice,
        roles: [],
        nick: null,
        joined_at: guild.members[0].joined_at,
      });
    });
    const listFor = async (userId: string, scope: string, query = '') => {
      sut.loginAs(userId);
      const { body } = await exchange((await authorize({ scope })).location!.searchParams.get('code')!);
      return get(`/users/@me/guilds${query}`, `Bearer ${body.access_token as string}`);
    };

    const alice = await listFor(demo.members.alice, 'identify guilds');
    expect(alice.status).toBe(200);
    // By id: the demo guild was created first. alice is an Admin there, a bare member elsewhere.
    expect(alice.body).toEqual([
      {
        id: demo.guildId,
        name: 'Demo Guild',
        icon: null,
        banner: null,
        owner: false,
        permissions: ALL_BITS.toString(),
        // The demo guild's VIP role has a role emoji, which needs ROLE_ICONS.
        features: ['ROLE_ICONS'],
      },
      expect.objectContaining({ id: elsewhere.guildId, owner: false, permissions: expect.any(String) }),
    ]);
    const bare = BigInt((alice.body as unknown as { permissions: string }[])[1].permissions);
    expect(bare & PermissionFlagsBits.ManageGuild).toBe(0n);

    const owner = await listFor(demo.ownerId, 'identify guilds', '?with_counts=true');
    expect(owner.body).toEqual([
      expect.objectContaining({
        id: demo.guildId,
        owner: true,
        permissions: ALL_BITS.toString(),
        // The owner, the bot, five named members and the crowd.
        approximate_member_count: 7 + DEMO_CROWD_SIZE,
      }),
    ]);
    const paged = await listFor(demo.members.alice, 'identify guilds', `?after=${demo.guildId}&limit=1`);
    expect((paged.body as unknown as { id: string }[]).map((guild) => guild.id)).toEqual([elsewhere.guildId]);
    expect((await listFor(demo.members.alice, 'identify guilds', '?limit=201')).status).toBe(400);

    // The bot's own token lists the guilds the bot is in; `identify` alone does not reach the list.
    const bot = await get('/users/@me/guilds', `Bot ${sut.botToken}`);
    expect((bot.body as unknown as { id: string }[]).map((guild) => guild.id)).toEqual([demo.guildId]);
    expect(await listFor(demo.members.alice, 'identify')).toMatchObject({ status: 401 });
  });

  it('refreshes: a new access token, and a new refresh token in place of the old one', async () => {
    sut.loginAs(USER);
    const first = (await exchange(await codeFor())).body;
    const refresh = (refreshToken: string) =>
      token({ grant_type: 'refresh_token', refresh_token: refreshToken }, basic(CLIENT_ID, CLIENT_SECRET));

    const second = await refresh(first.refresh_token as string);
    expect(second).toMatchObject({
      status: 200,
      body: { token_type: 'Bearer', expires_in: 604800, scope: 'identify' },
    });
    expect(second.body.access_token).not.toBe(first.access_token);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(await get('/users/@me', `Bearer ${second.body.access_token as string}`)).toMatchObject({
      status: 200,
      body: { id: USER },
    });
    expect(await refresh(first.refresh_token as string)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid "refresh_token" in request.' },
    });
  });

  it('lets a test fail or hold the token endpoint and the consent page', async () => {
    sut.loginAs(USER);
    sut.injectFailure({ path: '/oauth2/authorize', status: 503 });
    expect((await authorize()).status).toBe(503);

    const code = await codeFor();
    sut.injectFailure({ method: 'POST', path: '/oauth2/token', status: 500 });
    expect(await exchange(code)).toEqual({
      status: 500,
      body: { message: '500: Internal Server Error', code: 0 },
    });
    // The failure stood in front of the endpoint: the code was not spent.
    expect((await exchange(code)).status).toBe(200);

    sut.injectFailure({ method: 'POST', path: '/oauth2/token', status: 500, delayMs: 60_000 });
    const held = fetch(`${api()}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code' }),
      signal: AbortSignal.timeout(100),
    });
    await expect(held).rejects.toMatchObject({ name: 'TimeoutError' });

    expect(sut.requestLog().map((r) => [r.route, r.status])).toEqual([
      ['/oauth2/authorize', 503],
      ['/oauth2/authorize', 302],
      ['/oauth2/token', 500],
      ['/oauth2/token', 200],
    ]);
  });

  it("keeps users' requests out of the bot's rate-limit buckets", async () => {
    sut.setRateLimits({ perRoute: { limit: 1, windowMs: 60_000 } });
    sut.loginAs(USER);
    const bearer = `Bearer ${(await exchange(await codeFor())).body.access_token as string}`;
    const asUser = [await get('/users/@me', bearer), await get('/users/@me', bearer)];
    expect(asUser.map((r) => [r.status, r.headers.has('x-ratelimit-bucket')])).toEqual([
      [200, false],
      [200, false],
    ]);
    expect((await get('/users/@me', `Bot ${sut.botToken}`)).status).toBe(200);
    expect((await get('/users/@me', `Bot ${sut.botToken}`)).status).toBe(429);
  });
});
