import { FakeChatPlatform } from '@lib/sandbox';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { AppProcess } from '../support/app-process';
import { openDataSource } from '../support/database';
import { cookiePair, DASHBOARD_URL, GatewayStack, startGatewayOn } from '../support/gateway-stack';
import { ADMIN, MEMBER, OWNER } from '../support/restore-scenario';
import { signInternalToken } from '../support/internal-tokens';
import { waitFor } from '../support/wait';

/** The public edge on its own: login, sessions, what is and is not forwarded, limits, headers. */
describe('gateway', () => {
  const stack = new GatewayStack();
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
  });

  afterAll(async () => {
    await stack.stop();
    await dataSource?.destroy();
  });

  it('logs a user in with the platform: state checked, user created once, session cookie and bearer', async () => {
    const start = await fetch(`${stack.gateway.url}/auth/login`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin + authorize.pathname).toBe(`${stack.platform.url}/oauth2/authorize`);
    expect(authorize.searchParams.get('scope')).toBe('identify guilds');
    expect(authorize.searchParams.get('client_id')).toBe(stack.clientId);
    const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith('oauth_state='))!;
    expect(stateCookie).toMatch(/HttpOnly/i);
    expect(stateCookie).toMatch(/SameSite=Lax/i);

    const first = await stack.login(ADMIN);
    const second = await stack.login(ADMIN);
    expect(second.user.id).toBe(first.user.id);
    expect(first.token).not.toBe(second.token);
    const rows = await dataSource.query<{ id: string }[]>(
      'SELECT id FROM identity.users WHERE platform_user_id = $1',
      [ADMIN],
    );
    expect(rows).toEqual([{ id: first.user.id }]);

    const byCookie = await stack.request('GET', '/api/v1/me', { cookie: first.cookie });
    expect(byCookie.status).toBe(200);
    expect(byCookie.body).toMatchObject({ id: first.user.id, platform_user_id: ADMIN });
    const byBearer = await stack.request('GET', '/api/v1/me', { token: second.token });
    expect(byBearer.body).toMatchObject({ id: first.user.id });

    // A browser gets the cookie and is sent to the dashboard.
    const browser = await fetch(`${stack.gateway.url}/auth/login`, { redirect: 'manual' });
    stack.platform.loginAs(MEMBER);
    const code = await fetch(browser.headers.get('location')!, { redirect: 'manual' });
    const landed = await fetch(code.headers.get('location')!, {
      redirect: 'manual',
      headers: { cookie: cookiePair(browser.headers, 'oauth_state') },
    });
    expect(landed.status).toBe(302);
    expect(landed.headers.get('location')).toBe(`${DASHBOARD_URL}/`);
    const sid = landed.headers.getSetCookie().find((c) => c.startsWith('sid='))!;
    expect(sid).toMatch(/HttpOnly/i);
    expect(sid).toMatch(/SameSite=Lax/i);
    expect(sid).toMatch(/Path=\//);
  });

  it('refuses a callback whose state is forged, missing from this browser, or used twice', async () => {
    const start = await fetch(`${stack.gateway.url}/auth/login`, { redirect: 'manual' });
    const stateCookie = cookiePair(start.headers, 'oauth_state');
    stack.platform.loginAs(OWNER);
    const callback = (await fetch(start.headers.get('location')!, { redirect: 'manual' })).headers.get(
      'location',
    )!;
    const state = new URL(callback).searchParams.get('state')!;
    const code = new URL(callback).searchParams.get('code')!;
    const call = (query: string, cookie?: string) =>
      stack.request('GET', `/auth/callback?${query}`, {
        headers: { accept: 'application/json', ...(cookie ? { cookie } : {}) },
      });

    const noCookie = await call(`code=${code}&state=${state}`);
    expect(noCookie.status).toBe(400);
    expect(noCookie.body).toMatchObject({ code: 'ErrInvalidOAuthState' });
    expect(noCookie.headers.get('content-type')).toContain('application/problem+json');
    expect((await call(`code=${code}&state=${'x'.repeat(32)}`, stateCookie)).status).toBe(400);
    expect((await call(`code=${code}&state=${state}`, stateCookie)).status).toBe(200);
    expect((await call(`code=${code}&state=${state}`, stateCookie)).status).toBe(400);
  });

  it('sends a user who says no back to the dashboard without a session', async () => {
    const start = await fetch(`${stack.gateway.url}/auth/login`, { redirect: 'manual' });
    stack.platform.denyNextAuthorization();
    const denied = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const back = await fetch(denied.headers.get('location')!, {
      redirect: 'manual',
      headers: { cookie: cookiePair(start.headers, 'oauth_state') },
    });
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(`${DASHBOARD_URL}/?login_error=denied`);
    expect(back.headers.getSetCookie().some((c) => c.startsWith('sid=') && !c.startsWith('sid=;'))).toBe(
      false,
    );
  });

  it('ends a session on logout, for the cookie and the bearer token alike', async () => {
    const session = await stack.login(MEMBER);
    expect((await stack.request('GET', '/api/v1/me', { token: session.token })).status).toBe(200);
    const out = await stack.request('POST', '/auth/logout', { cookie: session.cookie });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().some((c) => c.startsWith('sid=;'))).toBe(true);
    const after = await stack.request('GET', '/api/v1/me', { token: session.token });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'ErrUnauthenticated' });
  });

  it('forwards as the session user only: client identity headers are dropped, internal routes unreachable', async () => {
    const member = await stack.login(MEMBER);
    const forged = await signInternalToken(
      { kind: 'user', user_id: uuidv7(), platform_user_id: OWNER, session_id: uuidv7() },
      'notifier',
    );
    await stack.request('PUT', '/api/v1/me/notification-preferences', {
      token: member.token,
      body: { payment_notifications: false },
    });
    // With a forged internal token and no session: refused at the edge.
    const anonymous = await stack.request('GET', '/api/v1/me/notification-preferences', {
      headers: { 'x-internal-token': forged },
    });
    expect(anonymous.status).toBe(401);
    // With a session and a forged token for someone else: the session's user, not the forged one.
    const mine = await stack.request('GET', '/api/v1/me/notification-preferences', {
      token: member.token,
      headers: { 'x-internal-token': forged },
    });
    expect(mine.body).toMatchObject({ payment_notifications: false });

    for (const path of [
      '/internal/v1/plans',
      '/api/v1/../internal/v1/plans',
      `/api/v1/guilds/${uuidv7()}/access/${MEMBER}`,
      '/admin/v1/webhook-events',
      '/api/v1/nothing-here',
    ]) {
      const answer = await stack.request('GET', path, { token: member.token });
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
    const wrongMethod = await stack.request('DELETE', '/api/v1/billing/confirm', { token: member.token });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  it("logs the card form's return address without its authKey", async () => {
    const logging = await stack.startGateway({ LOG_LEVEL: 'info' });
    try {
      const authKey = `ak_${uuidv7().replace(/-/g, '')}`;
      const address = (plan: string) =>
        `${logging.url}/guilds/${uuidv7()}/checkout?plan=${plan}&checkout=${uuidv7()}&authKey=${authKey}&customerKey=user_x`;
      // As the browser comes back (the dashboard's page), then as any other client (a 404).
      await fetch(address('PRO'), { headers: { accept: 'text/html' } });
      const other = await fetch(address('ENTERPRISE'), { headers: { accept: 'application/json' } });
      expect(other.status).toBe(404);
      await waitFor('the request line', () => logging.output().includes('/checkout?plan=ENTERPRISE'));
      expect(logging.output()).toContain('authKey=[redacted]&customerKey=user_x');
      expect(logging.output()).not.toContain(authKey);
    } finally {
      await logging.stop();
    }
  });

  it('keeps one request id from the client through the service and back', async () => {
    const member = await stack.login(MEMBER);
    const answer = await stack.request('GET', '/api/v1/me/notification-preferences', {
      token: member.token,
      headers: { 'x-request-id': 'dashboard-req-42' },
    });
    expect(answer.headers.get('x-request-id')).toBe('dashboard-req-42');
    const problem = await stack.request('GET', `/api/v1/snapshots/${uuidv7()}`, {
      token: member.token,
      headers: { 'x-request-id': 'dashboard-req-43' },
    });
    expect(problem.status).toBe(404);
    expect(problem.body).toMatchObject({ request_id: 'dashboard-req-43' });
  });

  it('limits requests per session and per address with 429 and Retry-After', async () => {
    // Replicas share their counts in Redis, and every test request comes from 127.0.0.1: start
    // this minute's address count from zero.
    const redis = new Redis(process.env.REDIS_URL!);
    const counters = await redis.keys('rl:ip:*');
    if (counters.length) await redis.del(...counters);
    redis.disconnect();
    const limited = await stack.startGateway({
      RATE_LIMIT_SESSION_PER_MINUTE: '5',
      RATE_LIMIT_IP_PER_MINUTE: '12',
    });
    try {
      // Counts are per clock minute: stay inside one for the whole test.
      const leftInMinute = 60_000 - (Date.now() % 60_000);
      if (leftInMinute < 10_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 100));
      const session = await stack.login(MEMBER, limited);
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 7; i++) {
        const answer = await stack.request('GET', '/api/v1/me', { token: session.token }, limited);
        statuses.push(answer.status);
        if (answer.status === 429) {
          retryAfter = answer.headers.get('retry-after');
          expect(answer.body).toMatchObject({ code: 'ErrRateLimited' });
        }
      }
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      expect(statuses.slice(5)).toEqual([429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      // The address limit also covers anonymous calls and logins.
      const anonymous: number[] = [];
      for (let i = 0; i < 6; i++)
        anonymous.push((await stack.request('GET', '/auth/login', {}, limited)).status);
      expect(anonymous).toContain(429);
    } finally {
      await limited.stop();
    }
  });

  it('admits the dashboard origin with credentials and no other, and sets security headers', async () => {
    const preflight = await fetch(`${stack.gateway.url}/api/v1/me`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://dashboard.test:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://dashboard.test:5173');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    const stranger = await fetch(`${stack.gateway.url}/api/v1/me`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    expect(stranger.headers.get('x-content-type-options')).toBe('nosniff');
    expect(stranger.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(stranger.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(stranger.headers.get('x-powered-by')).toBeNull();
  });

  it('is healthy, ready and measured like every app, and documents the API at /docs', async () => {
    expect((await fetch(`${stack.gateway.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${stack.gateway.url}/health/ready`)).status).toBe(200);
    const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(metrics).toContain('gateway_upstream_duration_seconds');
    const docs = await fetch(`${stack.gateway.url}/docs/openapi.json`);
    expect(docs.status).toBe(200);
    const document = (await docs.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/v1/me', '/auth/login']));
    const viewer = await fetch(`${stack.gateway.url}/docs`);
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get('content-type')).toContain('text/html');
  });
});

/**
 * Standalone mode: no REDIS_URL, so sessions, OAuth states and rate-limit counts are rows of
 * identity.key_values. Only the gateway and the fake platform: login and sessions need no service.
 */
describe('gateway without REDIS_URL', () => {
  const platform = new FakeChatPlatform();
  let gateway: AppProcess;
  let dataSource: DataSource;
  let redis: Redis;

  beforeAll(async () => {
    dataSource = await openDataSource();
    redis = new Redis(process.env.REDIS_URL!);
    await platform.start();
    gateway = await startGatewayOn(platform, { REDIS_URL: '', DASHBOARD_URL });
  });

  afterAll(async () => {
    await gateway?.stop();
    await platform.stop();
    redis?.disconnect();
    await dataSource?.destroy();
  });

  const stored = async (key: string) =>
    (
      await dataSource.query<{ value: string; expires_at: Date }[]>(
        'SELECT value, expires_at FROM identity.key_values WHERE key = $1 AND expires_at > now()',
        [key],
      )
    )[0];
  const me = (headers: Record<string, string>) => fetch(`${gateway.url}/api/v1/me`, { headers });

  /** /auth/login, the platform's consent as `platformUserId`, and the callback URL it sends back. */
  async function startLogin(platformUserId: string) {
    const start = await fetch(`${gateway.url}/auth/login`, { redirect: 'manual' });
    platform.loginAs(platformUserId);
    const authorized = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = authorized.headers.get('location')!;
    const state = new URL(callback).searchParams.get('state')!;
    const finish = () =>
      fetch(callback, {
        redirect: 'manual',
        headers: { cookie: cookiePair(start.headers, 'oauth_state'), accept: 'application/json' },
      });
    return { state, finish };
  }

  it('is ready with the key-value table in place of Redis', async () => {
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      info: { database: { status: 'up' }, 'key-value': { status: 'up' } },
    });
  });

  it('keeps the OAuth state in the table until its one callback takes it', async () => {
    const login = await startLogin(OWNER);
    expect(await stored(`oauth:state:${login.state}`)).toMatchObject({ value: '1' });
    expect((await login.finish()).status).toBe(200);
    expect(await stored(`oauth:state:${login.state}`)).toBeUndefined();
    const again = await login.finish();
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ code: 'ErrInvalidOAuthState' });
  });

  it('logs in with a session kept in the table, counted per request, and ended by logout', async () => {
    const done = await (await startLogin(MEMBER)).finish();
    expect(done.status).toBe(200);
    const { token, user } = (await done.json()) as { token: string; user: { id: string } };
    const sessionKey = `session:${createHash('sha256').update(token).digest('hex')}`;
    const row = await stored(sessionKey);
    expect(JSON.parse(row.value)).toMatchObject({ user_id: user.id, platform_user_id: MEMBER });
    // SESSION_TTL_S: 7 days by default.
    expect(row.expires_at.getTime() - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(await redis.exists(sessionKey)).toBe(0);

    const byBearer = await me({ authorization: `Bearer ${token}` });
    expect(byBearer.status).toBe(200);
    const body = (await byBearer.json()) as { id: string; session: { id: string } };
    expect(body.id).toBe(user.id);
    const byCookie = await me({ cookie: cookiePair(done.headers, 'sid') });
    expect(byCookie.status).toBe(200);
    const [{ counted }] = await dataSource.query<{ counted: number }[]>(
      `SELECT coalesce(sum(value::int), 0)::int AS counted FROM identity.key_values WHERE key LIKE $1`,
      [`rl:s:${body.session.id}:%`],
    );
    expect(counted).toBe(2);

    const out = await fetch(`${gateway.url}/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(out.status).toBe(204);
    expect(await stored(sessionKey)).toBeUndefined();
    const after = await me({ authorization: `Bearer ${token}` });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ code: 'ErrUnauthenticated' });
  });
});
