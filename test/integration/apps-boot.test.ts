import { runScript, startApp } from '../support/app-process';

const APPS = ['gateway', 'recovery', 'billing', 'licensing', 'notifier', 'webhook-intake'] as const;

describe('every app against the local infrastructure', () => {
  it.each(APPS)('%s becomes ready, reports its dependencies and stops cleanly on SIGTERM', async (name) => {
    const app = await startApp(name);
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
    expect(app.output()).not.toContain('"level":50');
  });

  it('refuses to start with a bad environment and lists every problem', async () => {
    const proc = runScript('apps/recovery/src/main.ts', {
      DATABASE_URL: 'mysql://wrong',
      INTERNAL_JWT_SECRET: 'too-short',
      KAFKA_BROKERS: '',
      TEMPORAL_ADDRESS: undefined,
      PORT: 'eighty',
    });
    const { code } = await proc.exited;
    expect(code).toBe(1);
    const output = proc.output();
    for (const variable of [
      'DATABASE_URL',
      'INTERNAL_JWT_SECRET',
      'KAFKA_BROKERS',
      'TEMPORAL_ADDRESS',
      'PORT',
    ]) {
      expect(output).toContain(variable);
    }
    expect(output).not.toContain('too-short');
  });
});
