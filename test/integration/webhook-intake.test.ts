import { type ProviderWebhookBody, PROVIDER_SIGNATURE_HEADER } from '@lib/contracts';
import { FakePaymentProvider } from '@lib/testing';
import Redis from 'ioredis';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { type AppProcess, freePort, startApp } from '../support/app-process';
import { BillingTap, portOpen } from '../support/billing-tap';
import { BillingStack } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';
import { paymentDoneForUnknownOrder } from '../support/webhook-events';

const ADMIN_TOKEN = 'test-admin-token-0123456789';

interface EventRow {
  id: string;
  external_event_id: string | null;
  event_type: string | null;
  signature_valid: boolean;
  processing_result: string;
  processing_error: string | null;
  routing_outcome: string | null;
  deliveries: number;
  duplicate_of: string | null;
  raw_body: Buffer | null;
  body_bytes: number;
}

/** Webhook intake with real Redis, Postgres and billing behind it (issue 7, spec §4.9). */
describe('webhook intake', () => {
  const stack = new BillingStack();
  let tap: BillingTap;
  let tapUrl: string;
  let intake: AppProcess;
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    tap = new BillingTap(stack.billing.url);
    tapUrl = await tap.start();
    intake = await startApp('webhook-intake', { BILLING_URL: tapUrl });
  }, 120_000);

  afterAll(async () => {
    await intake?.stop();
    await tap?.stop();
    await stack.stop();
    await dataSource?.destroy();
  });

  const provider = () => stack.provider;
  const send = (body: ProviderWebhookBody, target = intake) =>
    provider().sendWebhook(`${target.url}/webhooks/provider`, body);

  const unknownOrderDone = () => paymentDoneForUnknownOrder(provider());

  async function rows(externalEventId: string): Promise<EventRow[]> {
    return dataSource.query<EventRow[]>(
      `SELECT id, external_event_id, event_type, signature_valid, processing_result, processing_error,
              routing_outcome, deliveries, duplicate_of, raw_body, body_bytes
         FROM webhook.webhook_events WHERE external_event_id = $1 ORDER BY created_at, id`,
      [externalEventId],
    );
  }

  async function metric(name: string): Promise<number> {
    const text = await (await fetch(`${intake.url}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith(name))
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  }

  const admin = (path: string, init: RequestInit = {}, token: string | null = ADMIN_TOKEN) =>
    fetch(`${intake.url}${path}`, {
      ...init,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it('settles a charge the provider confirms only by webhook: 200 with no content, routed once', async () => {
    const { guildId } = await stack.registeredGuild('Webhook Settled Guild');
    const confirmed = await stack.subscribeUnanswered(stack.user(OWNER), guildId);
    expect(confirmed.status).toBe(202);
    const id = confirmed.body.id as string;
    const done = provider().paymentDoneEvent(`sub_${id}_001_r0`);
    const answer = await send(done);
    expect(answer).toEqual({ status: 200, body: '' });
    const [row] = await dataSource.query<{ status: string }[]>(
      `SELECT status FROM billing.subscriptions WHERE id = $1`,
      [id],
    );
    expect(row.status).toBe('active');
    expect(await rows(done.eventId)).toEqual([
      expect.objectContaining({
        processing_result: 'success',
        routing_outcome: 'applied',
        signature_valid: true,
      }),
    ]);
    expect(tap.routed.get(done.eventId)).toBe(1);
  });

  it('records and refuses a forged signature with 401, never routing it, and counts WebhookRejected', async () => {
    const rejectedBefore = await metric('webhook_rejected_total');
    const event = unknownOrderDone();
    const forged = await provider().sendWebhook(`${intake.url}/webhooks/provider`, event, {
      signature: 'ab'.repeat(32),
    });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body)).toMatchObject({ code: 'ErrInvalidSignature', status: 401 });
    const unsigned = await provider().sendRawWebhook(
      `${intake.url}/webhooks/provider`,
      JSON.stringify(event),
      {
        'content-type': 'application/json',
      },
    );
    expect(unsigned.status).toBe(401);
    expect(await rows(event.eventId)).toEqual([
      expect.objectContaining({ signature_valid: false, processing_result: 'failed' }),
      expect.objectContaining({ signature_valid: false, processing_result: 'failed' }),
    ]);
    expect(tap.routed.has(event.eventId)).toBe(false);
    expect(await metric('webhook_rejected_total')).toBe(rejectedBefore + 2);

    // The forged copies do not block the genuine event.
    expect((await send(event)).status).toBe(200);
    expect(tap.routed.get(event.eventId)).toBe(1);
  });

  it('answers a duplicate 200 and records it without routing it again', async () => {
    const event = unknownOrderDone();
    expect((await send(event)).status).toBe(200);
    expect(await send(event)).toEqual({ status: 200, body: '' });
    const recorded = await rows(event.eventId);
    expect(recorded.map((row) => row.processing_result)).toEqual(['success', 'duplicate']);
    expect(recorded[1].duplicate_of).toBe(recorded[0].id);
    expect(recorded[0].routing_outcome).toBe('ignored');
    expect(tap.routed.get(event.eventId)).toBe(1);
  });

  it('answers 500 when routing fails and processes the resend again', async () => {
    const event = unknownOrderDone();
    tap.failing = true;
    try {
      const failed = await send(event);
      expect(failed.status).toBe(500);
      expect(JSON.parse(failed.body)).toMatchObject({ code: 'ErrWebhookRoutingFailed' });
    } finally {
      tap.failing = false;
    }
    expect(await rows(event.eventId)).toEqual([
      expect.objectContaining({
        processing_result: 'failed',
        processing_error: expect.stringContaining('503'),
      }),
    ]);
    expect(await send(event)).toEqual({ status: 200, body: '' });
    expect(await rows(event.eventId)).toEqual([
      expect.objectContaining({ processing_result: 'success', deliveries: 2, processing_error: null }),
    ]);
    expect(tap.routed.get(event.eventId)).toBe(1);
    expect((await send(event)).status).toBe(200);
    expect((await rows(event.eventId)).map((row) => row.processing_result)).toEqual(['success', 'duplicate']);
  });

  it('routes every known event type and records unknown ones without routing them', async () => {
    const events: ProviderWebhookBody[] = [
      provider().webhookEvent('PAYMENT.FAILED', {
        paymentKey: null,
        orderId: `order_${uuidv7()}`,
        status: 'ABORTED',
        failure: { code: 'REJECT_CARD_PAYMENT', message: 'declined' },
        customerKey: 'user_x',
      }),
      provider().webhookEvent('PAYMENT.CANCELED', {
        paymentKey: 'pay_x',
        orderId: `order_${uuidv7()}`,
        status: 'CANCELED',
        canceledAt: new Date().toISOString(),
        cancelReason: 'refund',
        customerKey: 'user_x',
      }),
      provider().webhookEvent('BILLING_KEY.DELETED', {
        billingKey: `bk_${uuidv7()}`,
        customerKey: 'user_x',
        deletedAt: new Date().toISOString(),
      }),
    ];
    for (const event of events) {
      expect((await send(event)).status).toBe(200);
      expect(tap.routed.get(event.eventId)).toBe(1);
      expect((await rows(event.eventId))[0]).toMatchObject({
        processing_result: 'success',
        event_type: event.eventType,
      });
    }
    for (const eventType of ['PAYMENT.WAITING_FOR_DEPOSIT', 'SUBSCRIPTION.RENEWED', 'payment.done']) {
      const unknown = { ...unknownOrderDone(), eventType } as unknown as ProviderWebhookBody;
      expect((await send(unknown)).status).toBe(200);
      expect(await rows(unknown.eventId)).toEqual([
        expect.objectContaining({
          processing_result: 'success',
          routing_outcome: 'not_routed',
          event_type: eventType,
        }),
      ]);
      expect(tap.routed.has(unknown.eventId)).toBe(false);
    }
  });

  it('records a signed body it cannot parse (400) and an oversize body (413)', async () => {
    const url = `${intake.url}/webhooks/provider`;
    const marker = `not-json-${uuidv7()}`;
    const garbage = Buffer.from(`{"eventId": ${marker}`);
    const unparseable = await provider().sendRawWebhook(url, garbage, {
      'content-type': 'application/json',
      [PROVIDER_SIGNATURE_HEADER]: provider().signature(garbage),
    });
    expect(unparseable.status).toBe(400);
    expect(JSON.parse(unparseable.body)).toMatchObject({ code: 'ErrUnparseableWebhook' });
    const [stored] = await dataSource.query<EventRow[]>(
      `SELECT * FROM webhook.webhook_events WHERE raw_body = $1`,
      [garbage],
    );
    expect(stored).toMatchObject({
      processing_result: 'failed',
      signature_valid: true,
      external_event_id: null,
    });
    expect(stored.processing_error).toContain('unparseable');

    const noId = Buffer.from(JSON.stringify({ eventType: 'PAYMENT.DONE', data: {} }));
    const missing = await provider().sendRawWebhook(url, noId, {
      'content-type': 'application/json',
      [PROVIDER_SIGNATURE_HEADER]: provider().signature(noId),
    });
    expect(missing.status).toBe(400);

    const before = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM webhook.webhook_events WHERE body_bytes > 1048576`,
    );
    const huge = Buffer.alloc(1024 * 1024 + 1, 0x20);
    const oversize = await provider().sendRawWebhook(url, huge, {
      'content-type': 'application/json',
      [PROVIDER_SIGNATURE_HEADER]: provider().signature(huge),
    });
    expect(oversize.status).toBe(413);
    expect(JSON.parse(oversize.body)).toMatchObject({ code: 'ErrPayloadTooLarge' });
    const after = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM webhook.webhook_events WHERE body_bytes > 1048576`,
    );
    expect(after[0].count).toBe(before[0].count + 1);
  });

  it('routes 50 distinct events exactly once when each arrives 10 times at once', async () => {
    const events = Array.from({ length: 50 }, () => unknownOrderDone());
    const answers = await Promise.all(
      events.flatMap((event) => Array.from({ length: 10 }, () => send(event))),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const ids = events.map((event) => event.eventId);
    const counts = await dataSource.query<{ processing_result: string; count: number }[]>(
      `SELECT processing_result, count(*)::int AS count FROM webhook.webhook_events
        WHERE external_event_id = ANY($1::text[]) GROUP BY processing_result ORDER BY processing_result`,
      [ids],
    );
    expect(counts).toEqual([
      { processing_result: 'duplicate', count: 450 },
      { processing_result: 'success', count: 50 },
    ]);
    expect(ids.map((id) => tap.routed.get(id))).toEqual(ids.map(() => 1));
  });

  it('stays exactly once with Redis stopped', async () => {
    const port = await freePort();
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    let second: AppProcess | undefined;
    try {
      await waitFor('redis to listen', () => portOpen(port));
      second = await startApp('webhook-intake', {
        BILLING_URL: tapUrl,
        REDIS_URL: `redis://127.0.0.1:${port}`,
      });
      const first = unknownOrderDone();
      expect((await send(first, second)).status).toBe(200);
      redis.kill('SIGKILL');
      await new Promise((resolve) => redis.once('exit', resolve));

      const event = unknownOrderDone();
      const answers = await Promise.all(Array.from({ length: 5 }, () => send(event, second)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      expect((await rows(event.eventId)).map((row) => row.processing_result).sort()).toEqual([
        'duplicate',
        'duplicate',
        'duplicate',
        'duplicate',
        'success',
      ]);
      expect(tap.routed.get(event.eventId)).toBe(1);
      // The event seen before Redis went away is still a duplicate, by the database alone.
      expect((await send(first, second)).status).toBe(200);
      expect(tap.routed.get(first.eventId)).toBe(1);
    } finally {
      redis.kill('SIGKILL');
      await second?.stop();
    }
  });

  it('gives operators list, get and reprocess behind the admin token', async () => {
    const event = unknownOrderDone();
    tap.failing = true;
    try {
      expect((await send(event)).status).toBe(500);
    } finally {
      tap.failing = false;
    }
    for (const token of [null, 'wrong-token-0123456789']) {
      const refused = await admin('/admin/v1/webhook-events', {}, token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
    }
    const failed = await admin('/admin/v1/webhook-events?source=provider&result=failed&limit=200');
    expect(failed.status).toBe(200);
    const page = (await failed.json()) as {
      items: { id: string; external_event_id: string; processing_result: string }[];
    };
    expect(page.items.every((item) => item.processing_result === 'failed')).toBe(true);
    const item = page.items.find((candidate) => candidate.external_event_id === event.eventId)!;
    expect(item).toBeDefined();

    const one = await admin(`/admin/v1/webhook-events/${item.id}`);
    expect(await one.json()).toMatchObject({
      id: item.id,
      payload: { eventId: event.eventId },
      processing_result: 'failed',
    });

    const reprocessed = await admin(`/admin/v1/webhook-events/${item.id}/reprocess`, { method: 'POST' });
    expect(reprocessed.status).toBe(200);
    expect(await reprocessed.json()).toMatchObject({
      processing_result: 'success',
      reprocessed: 1,
      routing_outcome: 'ignored',
    });
    expect(tap.routed.get(event.eventId)).toBe(1);

    const paged = await admin('/admin/v1/webhook-events?limit=2');
    const first = (await paged.json()) as { items: { id: string }[]; next_cursor: string };
    expect(first.items).toHaveLength(2);
    const next = await admin(`/admin/v1/webhook-events?limit=2&cursor=${first.next_cursor}`);
    const second = (await next.json()) as { items: { id: string }[] };
    expect(second.items[0].id < first.items[1].id).toBe(true);
    expect((await admin('/admin/v1/webhook-events?result=weird')).status).toBe(400);
    expect((await admin(`/admin/v1/webhook-events/${uuidv7()}`)).status).toBe(404);
    // Admin routes take the admin token, not a user's identity through the gateway.
    expect((await admin('/admin/v1/webhook-events', {}, 'Bearer')).status).toBe(401);
  });

  it('pages through rows recorded within the same millisecond without skipping any', async () => {
    const source = `paging${Date.now()}`;
    const times = [
      '2026-11-22T07:00:00.123456Z',
      '2026-11-22T07:00:00.123400Z',
      '2026-11-22T07:00:00.123300Z',
    ];
    const ids = times.map(() => uuidv7());
    for (const [i, at] of times.entries()) {
      await dataSource.query(
        `INSERT INTO webhook.webhook_events (id, source, signature_valid, body_bytes, processing_result,
           received_at, created_at)
         VALUES ($1, $2, false, 0, 'failed', $3, $3)`,
        [ids[i], source, at],
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await admin(
        `/admin/v1/webhook-events?source=${source}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      const page = (await response.json()) as { items: { id: string }[]; next_cursor: string | null };
      seen.push(...page.items.map((item) => item.id));
      cursor = page.next_cursor;
    } while (cursor && seen.length < 10);
    expect(seen).toEqual(ids);
  });

  it('counts WebhookReceived by outcome', async () => {
    expect(await metric('webhook_received_total{source="provider",outcome="accepted"}')).toBeGreaterThan(0);
    expect(
      await metric('webhook_received_total{source="provider",outcome="duplicate"}'),
    ).toBeGreaterThanOrEqual(450);
  });

  it('answers with the caller’s request id, passes it to billing, and counts the route in the HTTP metrics', async () => {
    const series = (status: number) =>
      `http_requests_total{service="webhook-intake",method="POST",route="/webhooks/provider",status="${status}"}`;
    const [okBefore, forgedBefore] = [await metric(series(200)), await metric(series(401))];
    const post = (event: ProviderWebhookBody, signature: string, requestId?: string) => {
      const body = JSON.stringify(event);
      return fetch(`${intake.url}/webhooks/provider`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [PROVIDER_SIGNATURE_HEADER]: signature === 'valid' ? provider().signature(body) : signature,
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body,
      });
    };

    const forged = await post(unknownOrderDone(), 'ab'.repeat(32), 'wh-forged-1');
    expect(forged.status).toBe(401);
    expect(forged.headers.get('x-request-id')).toBe('wh-forged-1');
    expect(forged.headers.get('content-type')).toContain('application/problem+json');
    expect(await forged.json()).toMatchObject({
      code: 'ErrInvalidSignature',
      request_id: 'wh-forged-1',
      instance: '/webhooks/provider',
    });

    const done = unknownOrderDone();
    const accepted = await post(done, 'valid', 'wh-routed-1');
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toBe('');
    expect(tap.requestIds.get(done.eventId)).toBe('wh-routed-1');
    // Without one, the intake mints an id and uses it on both sides.
    const minted = unknownOrderDone();
    const answered = await post(minted, 'valid');
    expect(answered.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(tap.requestIds.get(minted.eventId)).toBe(answered.headers.get('x-request-id'));

    expect(await metric(series(200))).toBe(okBefore + 2);
    expect(await metric(series(401))).toBe(forgedBefore + 1);
    // Only POST is the endpoint; anything else is the framework's 404.
    const get = await fetch(`${intake.url}/webhooks/provider`);
    expect(get.status).toBe(404);
    expect(await get.json()).toMatchObject({ code: 'ErrNotFound' });
  });
});

/**
 * Standalone mode: no REDIS_URL, so the idempotency keys are rows of webhook.key_values. Billing is
 * a stand-in here (what it does with an event is not the point), behind the same counting tap.
 */
describe('webhook intake without REDIS_URL', () => {
  const provider = new FakePaymentProvider();
  let billing: Server;
  let tap: BillingTap;
  let intake: AppProcess;
  let dataSource: DataSource;
  let redis: Redis;

  beforeAll(async () => {
    dataSource = await openDataSource();
    redis = new Redis(process.env.REDIS_URL!);
    billing = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ outcome: 'applied', detail: 'stand-in' }));
    });
    await new Promise<void>((resolve) => billing.listen(0, '127.0.0.1', resolve));
    tap = new BillingTap(`http://127.0.0.1:${(billing.address() as AddressInfo).port}`);
    intake = await startApp('webhook-intake', { BILLING_URL: await tap.start(), REDIS_URL: '' });
  });

  afterAll(async () => {
    await intake?.stop();
    await tap?.stop();
    billing?.closeAllConnections();
    await new Promise((resolve) => billing?.close(resolve));
    redis?.disconnect();
    await dataSource?.destroy();
  });

  const send = (body: ProviderWebhookBody) => provider.sendWebhook(`${intake.url}/webhooks/provider`, body);
  const newEvent = () => paymentDoneForUnknownOrder(provider);
  const rows = (eventId: string) =>
    dataSource.query<{ id: string; processing_result: string; duplicate_of: string | null }[]>(
      `SELECT id, processing_result, duplicate_of FROM webhook.webhook_events
        WHERE external_event_id = $1 ORDER BY created_at, id`,
      [eventId],
    );
  const results = async (eventId: string) => (await rows(eventId)).map((row) => row.processing_result);
  const claim = async (eventId: string) =>
    (
      await dataSource.query<{ expires_at: Date }[]>(
        `SELECT expires_at FROM webhook.key_values WHERE key = $1 AND expires_at > now()`,
        [`idem:webhook:provider:${eventId}`],
      )
    )[0];

  it('claims the key in Postgres for 24 h and answers the resend as a duplicate, routed once', async () => {
    const event = newEvent();
    expect(await send(event)).toEqual({ status: 200, body: '' });
    const claimed = await claim(event.eventId);
    expect(claimed.expires_at.getTime() - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(claimed.expires_at.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect(await redis.exists(`idem:webhook:provider:${event.eventId}`)).toBe(0);

    expect(await send(event)).toEqual({ status: 200, body: '' });
    const [original, duplicate] = await rows(event.eventId);
    expect([original.processing_result, duplicate.processing_result]).toEqual(['success', 'duplicate']);
    expect(duplicate.duplicate_of).toBe(original.id);
    expect(tap.routed.get(event.eventId)).toBe(1);
  });

  it('routes an event once when 10 copies arrive at the same time', async () => {
    const event = newEvent();
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(event)));
    expect(answers.map((answer) => answer.status)).toEqual(Array<number>(10).fill(200));
    expect((await results(event.eventId)).sort()).toEqual([...Array<string>(9).fill('duplicate'), 'success']);
    expect(tap.routed.get(event.eventId)).toBe(1);
  });

  it('releases the claim when routing fails, so the resend is processed again', async () => {
    const event = newEvent();
    tap.failing = true;
    try {
      expect((await send(event)).status).toBe(500);
    } finally {
      tap.failing = false;
    }
    expect(await claim(event.eventId)).toBeUndefined();
    expect(await send(event)).toEqual({ status: 200, body: '' });
    expect(await results(event.eventId)).toEqual(['success']);
    expect(tap.routed.get(event.eventId)).toBe(1);
    expect(await claim(event.eventId)).toBeDefined();
    expect(await send(event)).toEqual({ status: 200, body: '' });
    expect(await results(event.eventId)).toEqual(['success', 'duplicate']);
  });
});
