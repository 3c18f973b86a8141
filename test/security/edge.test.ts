import { INTERNAL_TOKEN_HEADER, type InternalIdentity } from '@lib/contracts';
import { InternalTokenCodec, internalKeysOf } from '@lib/identity';
import { SignJWT } from 'jose';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { Client } from 'pg';
import type { AppProcess } from '../support/app-process';
import { cookiePair, DASHBOARD_URL, GatewayStack, type LoggedIn } from '../support/gateway-stack';
import { TEST_INTERNAL_KEYS } from '../support/internal-keys';
import { signInternalToken } from '../support/internal-tokens';
import { MEMBER, OWNER } from '../support/restore-scenario';
import { serviceDatabaseUrl } from '../support/service-logins';
import { waitFor } from '../support/wait';

/** What came back on a raw connection: the status line's code, the head and the body. */
interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends `head` (and, later, `body` if given) on a fresh TCP connection and reads until the server
 * closes it or a whole answer with Content-Length has arrived. `answeredBeforeBody` tells whether
 * the answer came before any of the body was sent.
 */
async function rawRequest(
  url: string,
  head: string,
  body?: Buffer,
): Promise<RawAnswer & { answeredBeforeBody: boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  let bodySent = false;
  return new Promise((resolve, reject) => {
    let answeredBeforeBody = false;
    const finish = () => {
      const [headPart, ...rest] = received.split('\r\n\r\n');
      resolve({
        status: Number(headPart.split(' ')[1]),
        head: headPart,
        body: rest.join('\r\n\r\n'),
        answeredBeforeBody,
      });
      socket.destroy();
    };
    socket.on('data', (chunk: Buffer) => {
      if (received === '') answeredBeforeBody = !bodySent;
      received += chunk.toString('latin1');
      const length = /content-length: (\d+)/i.exec(received)?.[1];
      const split = received.indexOf('\r\n\r\n');
      if (length && split !== -1 && received.length - split - 4 >= Number(length)) finish();
    });
    socket.on('end', finish);
    socket.on('error', (error) => (received ? finish() : reject(error)));
    socket.write(head);
    if (body) {
      // The body goes later: an answer before it proves the server did not wait for it.
      setTimeout(() => {
        bodySent = true;
        socket.write(body, () => undefined);
      }, 300);
    }
  });
}

/**
 * The attacks of the security review on the public edge and between the services, performed
 * against the real apps of the distributed stack (gateway, recovery, billing, licensing, notifier).
 */
describe('security: the edge and the trust between services', () => {
  const stack = new GatewayStack();
  let owner: LoggedIn;
  let bait: Server;
  let baitUrl: string;
  const baitSaw: IncomingMessage[] = [];

  beforeAll(async () => {
    await stack.start();
    owner = await stack.login(OWNER);
    // A listener an attacker would like the gateway to reach (an internal host, a metadata service).
    bait = createServer((req, res) => {
      baitSaw.push(req);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"bait":"answered"}');
    });
    await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
    const address = bait.address() as { port: number };
    baitUrl = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => bait?.close(resolve));
    await stack.stop();
  });

  describe('the gateway forwards only to its own upstreams (SSRF)', () => {
    it.each([
      ['absolute form', (target: string) => `${target}/api/v1/guilds`],
      [
        'absolute form to an upstream path',
        (target: string) => `${target}/api/v1/me/notification-preferences`,
      ],
      ['authority-looking path', (target: string) => `//${new URL(target).host}/api/v1/guilds`],
    ])('a request line in %s reaches nothing but the gateway’s own 400', async (_, requestTarget) => {
      const body = '{"platform_guild_id":"300000000000000001"}';
      const answer = await rawRequest(
        stack.gateway.url,
        `POST ${requestTarget(baitUrl)} HTTP/1.1\r\nHost: ${new URL(stack.gateway.url).host}\r\n` +
          `Authorization: Bearer ${owner.token}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'ErrBadRequest', status: 400 });
      expect(answer.body).not.toContain('bait');
      expect(baitSaw).toHaveLength(0);
    });

    it('every service refuses an absolute-form request line as well', async () => {
      const token = await signInternalToken({ kind: 'service', service: 'billing' }, 'recovery');
      const answer = await rawRequest(
        stack.recovery.url,
        `GET ${baitUrl}/health/live HTTP/1.1\r\nHost: x\r\n${INTERNAL_TOKEN_HEADER}: ${token}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status).toBe(400);
      expect(baitSaw).toHaveLength(0);
    });
  });

  describe('only the gateway vouches for users', () => {
    const identity = (): InternalIdentity => ({
      kind: 'user',
      user_id: owner.user.id,
      platform_user_id: OWNER,
      session_id: 'forged',
    });
    const preferences = (app: AppProcess, token: string) =>
      fetch(`${app.url}/api/v1/me/notification-preferences`, { headers: { [INTERNAL_TOKEN_HEADER]: token } });

    it('the gateway’s own token is believed (the control)', async () => {
      const response = await preferences(stack.notifier, await signInternalToken(identity(), 'notifier'));
      expect(response.status).toBe(200);
    });

    it('a user identity signed with a service’s own, valid key is refused', async () => {
      for (const service of ['billing', 'recovery', 'licensing', 'webhook-intake'] as const) {
        const key = createPrivateKey({
          key: JSON.parse(TEST_INTERNAL_KEYS.signingKeys[service]),
          format: 'jwk',
        });
        for (const issuer of [service, 'gateway']) {
          const token = await new SignJWT({ identity: identity() })
            .setProtectedHeader({ alg: 'EdDSA', kid: issuer })
            .setIssuer(issuer)
            .setAudience('notifier')
            .setIssuedAt()
            .setExpirationTime('1m')
            .sign(key);
          const response = await preferences(stack.notifier, token);
          expect(response.status).toBe(401);
        }
      }
    });

    it('a token signed by a key that is not the gateway’s, under the gateway’s name, is refused', async () => {
      const stranger = InternalTokenCodec.fromKeySet(
        'gateway',
        internalKeysOf(() => generateKeyPairSync('ed25519').privateKey),
      );
      const response = await preferences(stack.notifier, await stranger.sign(identity(), 'notifier'));
      expect(response.status).toBe(401);
    });

    it('the old shared-secret token is refused', async () => {
      const token = await new SignJWT({ identity: identity() })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('gateway')
        .setAudience('guildkeeper-internal')
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(new TextEncoder().encode('test-internal-secret-0123456789abcdef'));
      expect((await preferences(stack.notifier, token)).status).toBe(401);
    });

    it('a token the gateway addressed to one service is refused by another', async () => {
      const forBilling = await signInternalToken(identity(), 'billing');
      expect((await preferences(stack.notifier, forBilling)).status).toBe(401);
    });

    it('a service token is not a user: user routes refuse it', async () => {
      const token = await signInternalToken({ kind: 'service', service: 'billing' }, 'notifier');
      const response = await preferences(stack.notifier, token);
      expect([401, 403]).toContain(response.status);
      expect(response.status).not.toBe(200);
    });
  });

  describe('each service’s database login reaches only its own schema', () => {
    it('billing’s login is refused on recovery.snapshots, and works on its own tables', async () => {
      const billing = new Client({ connectionString: serviceDatabaseUrl('billing') });
      await billing.connect();
      try {
        await expect(billing.query('SELECT count(*) FROM recovery.snapshots')).rejects.toMatchObject({
          code: '42501',
          message: 'permission denied for schema recovery',
        });
        await expect(billing.query('SELECT count(*) FROM billing.subscriptions')).resolves.toBeDefined();
        // Nor can it make a table where another service would look, or a schema of its own.
        await expect(billing.query('CREATE TABLE public.billing_was_here (id int)')).rejects.toMatchObject({
          code: '42501',
        });
        await expect(billing.query('CREATE SCHEMA billing_side')).rejects.toMatchObject({ code: '42501' });
      } finally {
        await billing.end();
      }
    });

    it('no service’s login can read another service’s schema', async () => {
      const schemas = ['identity', 'recovery', 'billing', 'licensing', 'notification', 'webhook'];
      const owners = {
        gateway: 'identity',
        recovery: 'recovery',
        billing: 'billing',
        licensing: 'licensing',
        notifier: 'notification',
        'webhook-intake': 'webhook',
      } as const;
      for (const [service, own] of Object.entries(owners) as [keyof typeof owners, string][]) {
        const client = new Client({ connectionString: serviceDatabaseUrl(service) });
        await client.connect();
        try {
          const { rows } = await client.query<{ schema: string; usable: boolean }>(
            `SELECT s AS schema, has_schema_privilege(current_user, s, 'USAGE') AS usable
               FROM unnest($1::text[]) AS s`,
            [schemas],
          );
          expect(rows.filter((row) => row.usable).map((row) => row.schema)).toEqual([own]);
        } finally {
          await client.end();
        }
      }
    });
  });

  describe('bodies are not read before the caller is known', () => {
    const megabyte = Buffer.alloc(1024 * 1024, 'a');

    it('a request without a session is refused before its body is sent', async () => {
      const answer = await rawRequest(
        stack.gateway.url,
        `POST /api/v1/guilds HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${megabyte.length}\r\n\r\n`,
        megabyte,
      );
      expect(answer.status).toBe(401);
      expect(answer.answeredBeforeBody).toBe(true);
      expect(answer.head.toLowerCase()).toContain('connection: close');
    });

    it('a client that waits for 100 Continue is refused without the invitation, and invited with a session', async () => {
      const body = '{"payment_notifications":true}';
      const head = (authorization: string) =>
        `PUT /api/v1/me/notification-preferences HTTP/1.1\r\nHost: x\r\n${authorization}` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`;
      const refused = await rawRequest(stack.gateway.url, head(''), Buffer.from(body));
      expect(refused.status).toBe(401);
      expect(refused.answeredBeforeBody).toBe(true);
      const invited = await rawRequest(
        stack.gateway.url,
        head(`Authorization: Bearer ${owner.token}\r\n`),
        Buffer.from(body),
      );
      // The first answer is the invitation, sent before the body; the result follows.
      expect(invited.status).toBe(100);
      expect(invited.answeredBeforeBody).toBe(true);
      expect(invited.body).toContain('HTTP/1.1 200 OK');
    });

    it('a body on a method that takes none is refused unread, not dropped', async () => {
      for (const method of ['GET', 'DELETE']) {
        const answer = await rawRequest(
          stack.gateway.url,
          `${method} /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${megabyte.length}\r\n\r\n`,
          megabyte,
        );
        expect(answer.status).toBe(400);
        expect(answer.answeredBeforeBody).toBe(true);
        expect(JSON.parse(answer.body)).toMatchObject({
          code: 'ErrBadRequest',
          detail: expect.stringMatching(/no body/),
        });
      }
    });

    it('a declared body over 1 MiB is refused at once, even with a session', async () => {
      const answer = await rawRequest(
        stack.gateway.url,
        `POST /api/v1/guilds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${megabyte.length + 1}\r\n\r\n`,
        Buffer.concat([megabyte, Buffer.from('a')]),
      );
      expect(answer.status).toBe(413);
      expect(answer.answeredBeforeBody).toBe(true);
    });

    it('a chunked body is cut off at the limit', async () => {
      const chunk = Buffer.alloc(256 * 1024, 'a');
      const chunked = Buffer.concat(
        Array.from({ length: 6 }, () =>
          Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
        ),
      );
      const answer = await rawRequest(
        stack.gateway.url,
        `POST /api/v1/guilds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        chunked,
      );
      expect(answer.status).toBe(413);
      expect(answer.head.toLowerCase()).toContain('connection: close');
    });
  });

  describe('changes made with the session cookie must come from the dashboard', () => {
    const change = (headers: Record<string, string>) =>
      fetch(`${stack.gateway.url}/api/v1/me/notification-preferences`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ payment_notifications: true }),
      });

    it('refuses another site’s request that carries the cookie', async () => {
      const attempts: Record<string, string>[] = [
        { cookie: owner.cookie, origin: 'https://evil.example' },
        { cookie: owner.cookie, origin: 'null' },
        { cookie: owner.cookie, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
        { cookie: owner.cookie, 'sec-fetch-site': 'same-site' },
        { cookie: owner.cookie },
      ];
      for (const headers of attempts) {
        const response = await change(headers);
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ code: 'ErrCrossOriginRequest' });
      }
    });

    it('lets the dashboard, a same-origin page and a bearer client through', async () => {
      const allowed: Record<string, string>[] = [
        { cookie: owner.cookie, origin: new URL(DASHBOARD_URL).origin },
        { cookie: owner.cookie, 'sec-fetch-site': 'same-origin' },
        { authorization: `Bearer ${owner.token}` },
      ];
      for (const headers of allowed) {
        expect((await change(headers)).status).toBe(200);
      }
      // Reads need no origin: SameSite and CORS keep their answers from other sites.
      const read = await fetch(`${stack.gateway.url}/api/v1/me`, { headers: { cookie: owner.cookie } });
      expect(read.status).toBe(200);
    });

    it('another site cannot log the user out', async () => {
      const member = await stack.login(MEMBER);
      const refused = await fetch(`${stack.gateway.url}/auth/logout`, {
        method: 'POST',
        headers: { cookie: member.cookie, origin: 'https://evil.example' },
      });
      expect(refused.status).toBe(403);
      const still = await fetch(`${stack.gateway.url}/api/v1/me`, { headers: { cookie: member.cookie } });
      expect(still.status).toBe(200);
    });
  });

  it('the OAuth code never reaches the request log', async () => {
    const gateway = await stack.startGateway({ LOG_LEVEL: 'info' });
    try {
      const start = await fetch(`${gateway.url}/auth/login`, { redirect: 'manual' });
      stack.platform.loginAs(MEMBER);
      const authorized = await fetch(start.headers.get('location')!, { redirect: 'manual' });
      // The platform sends the browser to the registered callback; this gateway takes it.
      const callback = new URL(authorized.headers.get('location')!);
      const code = callback.searchParams.get('code')!;
      const state = callback.searchParams.get('state')!;
      expect(code.length).toBeGreaterThan(8);
      const done = await fetch(`${gateway.url}${callback.pathname}${callback.search}`, {
        redirect: 'manual',
        headers: { cookie: cookiePair(start.headers, 'oauth_state'), accept: 'application/json' },
      });
      expect(done.status).toBe(200);
      // A used code, sent again: a 400 problem whose `instance` would carry the URL.
      const again = await fetch(`${gateway.url}${callback.pathname}${callback.search}`, {
        headers: { cookie: cookiePair(start.headers, 'oauth_state'), accept: 'application/json' },
      });
      const problem = (await again.json()) as { instance?: string };
      expect(problem.instance).toBe('/auth/callback?code=[redacted]&state=[redacted]');
      await waitFor('the callback to be logged', () => gateway.output().includes('/auth/callback'), {
        timeoutMs: 5_000,
      });
      expect(gateway.output()).not.toContain(code);
      expect(gateway.output()).not.toContain(state);
      expect(gateway.output()).toContain('code=[redacted]');
    } finally {
      await gateway.stop();
    }
  });
});
