import { INTERNAL_TOKEN_HEADER } from '@lib/contracts';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { GatewayStack, type LoggedIn } from '../support/gateway-stack';
import { signInternalToken } from '../support/internal-tokens';
import { MEMBER, OWNER } from '../support/restore-scenario';

/**
 * The dashboard's guild list (`GET /api/v1/me/guilds`): the user's platform access token it rests on
 * is kept only sealed in the session record and never logged; the list answers only a session; the
 * registry lookup behind it answers only services.
 */
describe('the guild list of the dashboard', () => {
  const stack = new GatewayStack();
  let owner: LoggedIn;
  let platformGuildId = '';
  let guildId = '';

  beforeAll(async () => {
    // Every request line and more in the gateway's output, to look for the token in.
    process.env.LOG_LEVEL = 'debug';
    try {
      await stack.start();
    } finally {
      process.env.LOG_LEVEL = 'warn';
    }
    ({ guildId, platformGuildId } = await stack.registeredGuild('Listed guild'));
    owner = await stack.login(OWNER);
  }, 240_000);

  afterAll(() => stack.stop());

  it('keeps the platform access token sealed in the session and out of the logs', async () => {
    const listed = await stack.request('GET', '/api/v1/me/guilds', { cookie: owner.cookie });
    expect(listed.status).toBe(200);
    expect(listed.body.guilds).toEqual([
      expect.objectContaining({
        platform_guild_id: platformGuildId,
        guild_id: guildId,
        status: 'registered',
      }),
    ]);

    const accessTokens = stack.platform.issuedAccessTokens();
    expect(accessTokens.length).toBeGreaterThan(0);
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      const key = (await redis.keys('*')).find((candidate) =>
        candidate.endsWith(createHash('sha256').update(owner.token).digest('hex')),
      );
      expect(key).toBeDefined();
      const record = (await redis.get(key!))!;
      expect(JSON.parse(record)).toMatchObject({ platform_access: expect.any(String) });
      for (const token of accessTokens) expect(record).not.toContain(token);
    } finally {
      redis.disconnect();
    }
    const logs = stack.gateway.output();
    expect(logs).toContain('/api/v1/me/guilds');
    for (const token of accessTokens) expect(logs).not.toContain(token);
  });

  it('answers only a session, and lists nothing the user cannot manage', async () => {
    const anonymous = await stack.request('GET', '/api/v1/me/guilds');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/problem\+json/);
    const member = await stack.login(MEMBER);
    const listed = await stack.request('GET', '/api/v1/me/guilds', { token: member.token });
    expect(listed).toMatchObject({ status: 200, body: { guilds: [] } });
  });

  it("keeps recovery's registry lookup to services: not public, refused to a user", async () => {
    const viaGateway = await stack.request('POST', '/internal/v1/guilds/lookup', {
      token: owner.token,
      body: { platform_guild_ids: [platformGuildId] },
    });
    expect(viaGateway.status).toBe(404);
    const lookup = async (identity: Parameters<typeof signInternalToken>[0]) =>
      fetch(`${stack.recovery.url}/internal/v1/guilds/lookup`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [INTERNAL_TOKEN_HEADER]: await signInternalToken(identity, 'recovery'),
        },
        body: JSON.stringify({ platform_guild_ids: [platformGuildId] }),
      });
    expect((await lookup(stack.user(OWNER))).status).toBe(403);
    const asGateway = await lookup({ kind: 'service', service: 'gateway' });
    expect(asGateway.status).toBe(200);
    expect(await asGateway.json()).toEqual({
      guilds: [
        { platform_guild_id: platformGuildId, guild_id: guildId, registered: true, bot_present: true },
      ],
    });
  });
});
