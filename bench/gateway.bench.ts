import 'reflect-metadata';
import '../test/support/test-env';
import { INTERNAL_TOKEN_HEADER } from '@lib/contracts';
import { FakeChatPlatform } from '@lib/sandbox';
import { Agent, request } from 'node:http';
import { type AppProcess, startApp } from '../test/support/app-process';
import { cookiePair, startGatewayOn } from '../test/support/gateway-stack';
import migrateTestDatabase from '../test/support/global-setup';
import { signInternalToken } from '../test/support/internal-tokens';
import { percentile } from './percentile';

/**
 * `npm run bench:gateway` (infrastructure up): what the gateway adds to a request. The same call,
 * `GET /api/v1/me/notification-preferences` (a small read in the notifier), is made directly to the
 * notifier with an internal token and through the gateway with a session token: session lookup in
 * Redis, rate-limit counts, forwarding over keep-alive, the answer streamed back. One request at a
 * time over a kept-alive connection, the two paths interleaved in rounds so that both see the same
 * machine; the difference of the percentiles is the gateway's share.
 */
const ROUNDS = 10;
const PER_ROUND = 300;
const WARM_UP = 300;
const AIM_ADDED_P50_MS = 2;
const PATH = '/api/v1/me/notification-preferences';
const USER = '200000000000000077';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET; resolves with its latency in ms once the whole answer is read. */
function timedGet(url: string, headers: Record<string, string>): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.resume();
      res.once('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
        else resolve(Number(process.hrtime.bigint() - started) / 1e6);
      });
    });
    req.once('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  migrateTestDatabase();
  const platform = new FakeChatPlatform();
  const apps: AppProcess[] = [];
  try {
    await platform.start();
    const notifier = await startApp('notifier', {
      DISCORD_API_URL: `${platform.url}/api`,
      LOG_LEVEL: 'warn',
    });
    apps.push(notifier);
    const gateway = await startGatewayOn(platform, {
      NOTIFIER_URL: notifier.url,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_IP_PER_MINUTE: '1000000',
      RATE_LIMIT_SESSION_PER_MINUTE: '1000000',
    });
    apps.push(gateway);

    // Log in as a browser would, then use the session as a bearer token.
    const start = await fetch(`${gateway.url}/auth/login`, { redirect: 'manual' });
    platform.loginAs(USER);
    const code = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const done = await fetch(code.headers.get('location')!, {
      headers: { cookie: cookiePair(start.headers, 'oauth_state'), accept: 'application/json' },
    });
    const login = (await done.json()) as { token: string; user: { id: string } };
    const session = { authorization: `Bearer ${login.token}` };
    const internal = {
      [INTERNAL_TOKEN_HEADER]: await signInternalToken(
        { kind: 'user', user_id: login.user.id, platform_user_id: USER, session_id: 'bench' },
        'notifier',
      ),
    };

    const direct: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < WARM_UP; i++) {
      await timedGet(`${notifier.url}${PATH}`, internal);
      await timedGet(`${gateway.url}${PATH}`, session);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < PER_ROUND; i++) direct.push(await timedGet(`${notifier.url}${PATH}`, internal));
      for (let i = 0; i < PER_ROUND; i++) through.push(await timedGet(`${gateway.url}${PATH}`, session));
    }
    direct.sort((a, b) => a - b);
    through.sort((a, b) => a - b);
    const row = (name: string, values: number[]) =>
      `  ${name.padEnd(16)} p50 ${percentile(values, 50).toFixed(2).padStart(6)} ms   p99 ${percentile(
        values,
        99,
      )
        .toFixed(2)
        .padStart(6)} ms`;
    const addedP50 = percentile(through, 50) - percentile(direct, 50);
    const addedP99 = percentile(through, 99) - percentile(direct, 99);
    console.log(
      `gateway overhead: GET ${PATH}, ${ROUNDS * PER_ROUND} requests each way, one at a time over keep-alive, ` +
        `direct and through the gateway interleaved in ${ROUNDS} rounds (after ${WARM_UP} warm-up each)`,
    );
    console.log(row('direct', direct));
    console.log(row('through gateway', through));
    console.log(
      `  added by the gateway: p50 ${addedP50.toFixed(2)} ms (aim < ${AIM_ADDED_P50_MS} ms: ${
        addedP50 < AIM_ADDED_P50_MS ? 'met' : 'MISSED'
      }), p99 ${addedP99.toFixed(2)} ms`,
    );
    if (addedP50 >= AIM_ADDED_P50_MS) process.exitCode = 1;
  } finally {
    await Promise.all(apps.map((app) => app.stop()));
    await platform.stop();
    agent.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
