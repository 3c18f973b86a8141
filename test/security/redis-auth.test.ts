import { FakeChatPlatform, FakePaymentProvider } from '@lib/sandbox';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AppProcess, startApp } from '../support/app-process';
import { cookiePair, loginThroughGateway, requestGateway, startGatewayOn } from '../support/gateway-stack';
import { waitFor } from '../support/wait';
import { paymentDoneForUnknownOrder } from '../support/webhook-events';
import {
  makeTestCertificates,
  startRedisServer,
  type TestCertificates,
  type TestRedisServer,
} from './support/redis-server';

/**
 * Redis trusts nobody without its password. A redis-server of this test's own
 * with `requirepass` (and one with TLS); the gateway and the webhook intake reach it through
 * REDIS_URL alone (`redis://:password@host:port`, `rediss://` for TLS).
 */
describe('Redis with a password', () => {
  const password = 'redis-test-password-4f1c9a';
  const wrongPassword = 'not-the-redis-password-7d2e';
  let redis: TestRedisServer;

  beforeAll(async () => {
    redis = await startRedisServer({ password });
  });

  afterAll(async () => {
    await redis?.stop();
  });

  /** What a client of this Redis gets for PING: PONG, or the server's refusal. */
  async function ping(server: TestRedisServer, pass?: string): Promise<string> {
    const client = server.client(pass);
    try {
      return await client.ping();
    } catch (error) {
      return (error as Error).message;
    } finally {
      client.disconnect();
    }
  }

  it('refuses a client without the password (NOAUTH) or with a wrong one (WRONGPASS)', async () => {
    expect(await ping(redis)).toMatch(/^NOAUTH/);
    expect(await ping(redis, wrongPassword)).toMatch(/^WRONGPASS/);
    expect(await ping(redis, password)).toBe('PONG');
  });

  describe('the gateway, REDIS_URL with the password', () => {
    const platform = new FakeChatPlatform();
    let gateway: AppProcess;

    beforeAll(async () => {
      await platform.start();
      gateway = await startGatewayOn(platform, { REDIS_URL: redis.url(password), LOG_LEVEL: 'debug' });
    });

    afterAll(async () => {
      await gateway?.stop();
      await platform.stop();
    });

    it('is ready, keeps a login session in that Redis and serves the session from it', async () => {
      const { token, user } = await loginThroughGateway(gateway.url, platform, '300000000000000077');

      const client = redis.client(password);
      try {
        const stored = await client.get(`session:${createHash('sha256').update(token).digest('hex')}`);
        expect(JSON.parse(stored!)).toMatchObject({ user_id: user.id });
      } finally {
        client.disconnect();
      }
      const me = await requestGateway(gateway.url, 'GET', '/api/v1/me', { token });
      expect(me.status).toBe(200);
      expect(gateway.output()).not.toContain(password);
    });
  });

  describe('the webhook intake, REDIS_URL with the password', () => {
    const provider = new FakePaymentProvider();
    let billing: Server;
    let intake: AppProcess;

    beforeAll(async () => {
      // A stand-in for billing: what it does with the event is not the point here.
      billing = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ outcome: 'applied', detail: 'stand-in' }));
      });
      await new Promise<void>((resolve) => billing.listen(0, '127.0.0.1', resolve));
      intake = await startApp('webhook-intake', {
        BILLING_URL: `http://127.0.0.1:${(billing.address() as AddressInfo).port}`,
        REDIS_URL: redis.url(password),
        LOG_LEVEL: 'debug',
      });
    });

    afterAll(async () => {
      await intake?.stop();
      billing?.closeAllConnections();
      await new Promise((resolve) => billing?.close(resolve));
    });

    it("claims the webhook's idempotency key in that Redis", async () => {
      const event = paymentDoneForUnknownOrder(provider);
      expect((await provider.sendWebhook(`${intake.url}/webhooks/provider`, event)).status).toBe(200);

      const client = redis.client(password);
      try {
        const ttl = await client.ttl(`idem:webhook:provider:${event.eventId}`);
        expect(ttl).toBeGreaterThan(86_400 - 60);
      } finally {
        client.disconnect();
      }
      expect(intake.output()).not.toContain(password);
    });
  });

  it('leaves a gateway given a wrong password unready (503), without printing any password', async () => {
    const gateway = await startApp(
      'gateway',
      {
        REDIS_URL: redis.url(wrongPassword),
        // Debug: every Redis connection error is logged, so the output has something to leak.
        LOG_LEVEL: 'debug',
      },
      { until: 'live' },
    );
    try {
      // ioredis sends AUTH on connecting; the app logs Redis's refusal at debug.
      await waitFor('Redis to refuse the password', () => gateway.output().includes('WRONGPASS'));
      const readiness = await fetch(`${gateway.url}/health/ready`);
      expect(readiness.status).toBe(503);
      expect(gateway.output()).not.toContain(wrongPassword);
      expect(gateway.output()).not.toContain(password);
    } finally {
      await gateway.stop();
    }
  });

  describe('over TLS (rediss://, a private CA through NODE_EXTRA_CA_CERTS)', () => {
    let certificates: TestCertificates;
    let tlsRedis: TestRedisServer;

    beforeAll(async () => {
      certificates = makeTestCertificates();
      tlsRedis = await startRedisServer({ password, tls: certificates });
    });

    afterAll(async () => {
      await tlsRedis?.stop();
      certificates?.remove();
    });

    it('refuses plaintext on the TLS port, and a TLS client without the password', async () => {
      const plaintext = new Redis(tlsRedis.port, '127.0.0.1', {
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        commandTimeout: 2_000,
      });
      try {
        await expect(plaintext.ping()).rejects.toThrow();
      } finally {
        plaintext.disconnect();
      }
      expect(await ping(tlsRedis)).toMatch(/^NOAUTH/);
      expect(await ping(tlsRedis, password)).toBe('PONG');
    });

    it('serves a gateway that trusts the CA: its OAuth state is stored over TLS', async () => {
      const gateway = await startApp('gateway', {
        REDIS_URL: tlsRedis.url(password),
        NODE_EXTRA_CA_CERTS: certificates.caFile,
      });
      try {
        const login = await fetch(`${gateway.url}/auth/login`, { redirect: 'manual' });
        expect(login.status).toBe(302);
        const state = cookiePair(login.headers, 'oauth_state').split('=')[1];
        const client = tlsRedis.client(password);
        try {
          expect(await client.exists(`oauth:state:${state}`)).toBe(1);
        } finally {
          client.disconnect();
        }
      } finally {
        await gateway.stop();
      }
    });

    it('leaves a gateway that does not trust the CA unready: the certificate is checked', async () => {
      const gateway = await startApp(
        'gateway',
        { REDIS_URL: tlsRedis.url(password), NODE_EXTRA_CA_CERTS: undefined, LOG_LEVEL: 'debug' },
        { until: 'live' },
      );
      try {
        await waitFor('the TLS handshake to fail', () =>
          /self[- ]signed certificate|unable to verify/i.test(gateway.output()),
        );
        expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(503);
      } finally {
        await gateway.stop();
      }
    });
  });
});
