import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import type { ServiceName } from '@lib/contracts';
import { freePort, runScript, startApp } from '../support/app-process';
import { TEST_INTERNAL_KEYS } from '../support/internal-keys';
import { errorLines } from '../support/log-lines';
import { defaultServiceDatabaseUrl, serviceDatabaseVariable } from '../support/service-logins';
import { StartupProbe } from '../support/startup-probe';
import { waitFor } from '../support/wait';

const APPS = ['gateway', 'recovery', 'billing', 'licensing', 'notifier', 'webhook-intake'] as const;

/**
 * A database of this suite's own, migrated as `npm run migrate` does: the shared test database holds
 * other suites' leftovers (DMs due to users of platforms long stopped, guilds due a snapshot), which
 * a notifier or recovery would start working on, and this suite is about a clean start and stop.
 */
async function freshDatabase(name: string): Promise<string> {
  const admin = new URL(process.env.DATABASE_URL!);
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  admin.pathname = `/${name}`;
  const adminUrl = admin.toString();
  const logins = Object.fromEntries(
    APPS.map((service) => [serviceDatabaseVariable(service), defaultServiceDatabaseUrl(adminUrl, service)]),
  );
  execFileSync(process.execPath, ['-r', '@swc-node/register', 'scripts/migrate.ts'], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, DATABASE_URL: adminUrl, ...logins },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return adminUrl;
}

describe('every app against the local infrastructure', () => {
  let adminUrl: string;
  const databaseUrl = (service: ServiceName) => defaultServiceDatabaseUrl(adminUrl, service);

  beforeAll(async () => {
    adminUrl = await freshDatabase('guildkeeper_boot');
  }, 120_000);

  it.each(APPS)('%s becomes ready, reports its dependencies and stops cleanly on SIGTERM', async (name) => {
    // Knocking on the port from the moment the process starts: no connection is left unanswered.
    const port = await freePort();
    const probe = new StartupProbe(port).start();
    const app = await startApp(name, { DATABASE_URL: databaseUrl(name) }, { port }).catch(
      async (error: unknown) => {
        await probe.stop();
        throw error;
      },
    );
    await waitFor('the probe to be answered 200', () => probe.answered(200));
    const startup = await probe.stop();
    expect(startup).toMatchObject({ unanswered: 0, unavailableWithoutRetryAfter: 0 });
    try {
      const ready = await fetch(`${app.url}/health/ready`);
      const body = (await ready.json()) as { status: string; details: Record<string, { status: string }> };
      expect(ready.status).toBe(200);
      expect(body.status).toBe('ok');
      expect(body.details.database).toEqual({ status: 'up' });
      if (['recovery', 'billing', 'licensing', 'notifier'].includes(name)) {
        expect(body.details.kafka).toEqual({ status: 'up' });
      }
      if (name === 'recovery') expect(body.details.temporal).toEqual({ status: 'up' });

      const unknown = await fetch(`${app.url}/no-such-route`, { headers: { 'x-request-id': 'trace-123' } });
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toContain('application/problem+json');
      expect(await unknown.json()).toMatchObject({
        status: 404,
        code: 'ErrNotFound',
        request_id: 'trace-123',
      });
      expect(unknown.headers.get('x-request-id')).toBe('trace-123');

      const metrics = await fetch(`${app.url}/metrics`);
      expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
    } finally {
      expect(await app.stop('SIGTERM')).toBe(0);
    }
    // A clean stop (and start) logs no error, its libraries' own lines included.
    expect(errorLines(app.output())).toEqual([]);
  });

  it('refuses to start with a bad environment and lists every problem', async () => {
    const proc = runScript('apps/recovery/src/main.ts', {
      DATABASE_URL: 'mysql://wrong',
      INTERNAL_SIGNING_KEY: 'too-short',
      // A private key among the public ones: refused, since every service receives this set.
      INTERNAL_PUBLIC_KEYS: JSON.stringify({ keys: [JSON.parse(TEST_INTERNAL_KEYS.signingKeys.gateway)] }),
      KAFKA_BROKERS: '',
      TEMPORAL_ADDRESS: undefined,
      PORT: 'eighty',
    });
    const { code } = await proc.exited;
    expect(code).toBe(1);
    const output = proc.output();
    for (const variable of [
      'DATABASE_URL',
      'INTERNAL_SIGNING_KEY',
      'INTERNAL_PUBLIC_KEYS',
      'KAFKA_BROKERS',
      'TEMPORAL_ADDRESS',
      'PORT',
    ]) {
      expect(output).toContain(variable);
    }
    expect(output).not.toContain('too-short');
    expect(output).not.toContain(JSON.parse(TEST_INTERNAL_KEYS.signingKeys.gateway).d);
  });
});
