import { type ProviderWebhookBody, PROVIDER_SIGNATURE_HEADER } from '@lib/contracts';
import { FakePaymentProvider } from '@lib/sandbox';
import Redis from 'ioredis';
import { spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { BillingRouter } from '../../apps/webhook-intake/src/webhooks/billing-router';
import type { WebhookIdempotency } from '../../apps/webhook-intake/src/webhooks/webhook-idempotency';
import {
  type ReceivedWebhook,
  WebhookEventsRepository,
} from '../../apps/webhook-intake/src/webhooks/webhook-events.repository';
import { WebhookIntakeService } from '../../apps/webhook-intake/src/webhooks/webhook-intake.service';
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
  reprocess_of: string | null;
  body_text: string | null;
  raw_body: Buffer | null;
  body_bytes: number;
  payload: unknown;
}

/** Webhook intake with real Redis, Postgres and billing behind it (docs/behaviour.md §4.9). */
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
    // Over 500 deliveries in a minute from this one address: the per-address limit (the security
    // suite's subject) is off here.
    intake = await startApp('webhook-intake', { BILLING_URL: tapUrl, WEBHOOK_RATE_LIMIT_PER_MINUTE: '0' });
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
              routing_outcome, deliveries, duplicate_of, reprocess_of, body_text, raw_body, body_bytes, payload
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

    // An intake that lost billing's answer routes the event again: billing answers from its record
    // of the events it applied, and the payment stays settled once.
    const again = await stack.callBilling(
      'POST',
      '/internal/v1/provider-events',
      { kind: 'service', service: 'webhook-intake' },
      { event_id: done.eventId, event_type: done.eventType, data: done.data },
    );
    expect(again).toMatchObject({
      status: 200,
      body: {
        outcome: 'already_applied',
        detail: expect.stringContaining(`event ${done.eventId} was handled`),
      },
    });
    expect(
      await dataSource.query(`SELECT outcome FROM billing.provider_events WHERE event_id = $1`, [
        done.eventId,
      ]),
    ).toEqual([{ outcome: 'applied' }]);
    const started = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM billing.outbox
        WHERE envelope->>'aggregate_id' = $1 AND event_type = 'SubscriptionStarted'`,
      [id],
    );
    expect(started).toEqual([{ count: 1 }]);
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
    // Nothing of a forged body is taken as the event's: the rows are found by the body's digest.
    const body = JSON.stringify(event);
    const refused = await dataSource.query<EventRow[]>(
      `SELECT * FROM webhook.webhook_events WHERE body_sha256 = $1 ORDER BY created_at, id`,
      [createHash('sha256').update(body).digest('hex')],
    );
    const forgedRow = expect.objectContaining({
      signature_valid: false,
      processing_result: 'failed',
      external_event_id: null,
      body_bytes: Buffer.byteLength(body),
    }) as EventRow;
    expect(refused).toEqual([forgedRow, forgedRow]);
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

  it('answers 500 when routing fails, processes the resend again, and keeps every delivery with its outcome', async () => {
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
    expect(tap.routed.get(event.eventId)).toBe(1);
    expect((await send(event)).status).toBe(200);
    // Three deliveries, three rows: the failed one keeps its error beside the one that routed it.
    const [failed, routed, duplicate] = await rows(event.eventId);
    expect([failed, routed, duplicate]).toEqual([
      expect.objectContaining({
        processing_result: 'failed',
        processing_error: expect.stringContaining('503'),
      }),
      expect.objectContaining({
        processing_result: 'success',
        processing_error: null,
        routing_outcome: 'ignored',
      }),
      expect.objectContaining({ processing_result: 'duplicate', duplicate_of: routed.id }),
    ]);

    // The operator tools show each attempt of the event beside the one asked for.
    const answer = await admin(`/admin/v1/webhook-events/${failed.id}`);
    expect(answer.status).toBe(200);
    const view = (await answer.json()) as { processing_error: string; attempts: Record<string, unknown>[] };
    expect(view.processing_error).toContain('503');
    expect(view.attempts).toEqual([
      expect.objectContaining({
        id: failed.id,
        processing_result: 'failed',
        processing_error: failed.processing_error,
      }),
      expect.objectContaining({ id: routed.id, processing_result: 'success', routing_outcome: 'ignored' }),
      expect.objectContaining({ id: duplicate.id, processing_result: 'duplicate', duplicate_of: routed.id }),
    ]);
  });

  it('answers 500 when billing refuses the event, so the provider resends, and records each delivery', async () => {
    // PAYMENT.DONE without an orderId: billing refuses its data (400).
    const event = provider().webhookEvent('PAYMENT.DONE', {
      paymentKey: `pay_${uuidv7()}`,
      status: 'DONE',
      approvedAt: new Date().toISOString(),
      totalAmount: 9_900,
      customerKey: 'user_x',
    } as never);
    for (let delivery = 1; delivery <= 2; delivery++) {
      const answer = await send(event);
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 500, code: 'ErrWebhookRefused' });
    }
    expect(await rows(event.eventId)).toEqual([
      expect.objectContaining({
        processing_result: 'failed',
        processing_error: expect.stringContaining('400'),
      }),
      expect.objectContaining({
        processing_result: 'failed',
        processing_error: expect.stringContaining('400'),
      }),
    ]);
    expect(tap.routed.get(event.eventId)).toBe(2);
    expect(intake.output()).toContain('"alert":"webhook_refused_by_billing"');
    expect(
      await dataSource.query(`SELECT 1 FROM billing.provider_events WHERE event_id = $1`, [event.eventId]),
    ).toEqual([]);
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

  it('records a signed body it cannot parse (400), and refuses an oversize body unrecorded (413)', async () => {
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
      `SELECT * FROM webhook.webhook_events WHERE body_text = $1`,
      [garbage.toString('utf8')],
    );
    expect(stored).toMatchObject({
      processing_result: 'failed',
      signature_valid: true,
      external_event_id: null,
      raw_body: null,
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
    // Refused before it was read: there is nothing to record.
    expect(after[0].count).toBe(before[0].count);
  });

  it('keeps a signed body exactly as received beside its parsed form', async () => {
    const url = `${intake.url}/webhooks/provider`;
    const signed = (body: Buffer) =>
      provider().sendRawWebhook(url, body, {
        'content-type': 'application/json',
        [PROVIDER_SIGNATURE_HEADER]: provider().signature(body),
      });
    // Keys out of the usual order, an integer above 2^53, spacing, and text beyond ASCII: none of it
    // survives jsonb.
    const eventId = `evt_${uuidv7()}`;
    const at = new Date().toISOString();
    const text =
      `{"data": {"totalAmount": 9007199254740993123, "orderId": "order_${uuidv7()}", "paymentKey": "pay_x",` +
      ` "approvedAt": "${at}", "status": "DONE", "customerKey": "user_x", "memo": "결제 완료 ✓"},\n` +
      `  "eventType": "PAYMENT.DONE", "createdAt": "${at}", "eventId": "${eventId}"}`;
    expect(await signed(Buffer.from(text))).toEqual({ status: 200, body: '' });
    const [row] = await rows(eventId);
    expect(row).toMatchObject({ processing_result: 'success', body_text: text, raw_body: null });
    expect(row.payload).toMatchObject({ eventId, data: { memo: '결제 완료 ✓' } });
    expect(JSON.stringify(row.payload)).not.toBe(text);
    const view = (await (await admin(`/admin/v1/webhook-events/${row.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(view).toMatchObject({ body: text, raw_body: null, payload: { eventId } });

    // Bytes that are not UTF-8 are no text: they are kept as bytes, exactly.
    const otherId = `evt_${uuidv7()}`;
    const bytes = Buffer.concat([
      Buffer.from(`{"eventId": "${otherId}", "eventType": "PAYMENT.DONE", "createdAt": "${at}", "memo": "`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from(
        `", "data": {"orderId": "order_${uuidv7()}", "paymentKey": "pay_y", "approvedAt": "${at}", "status": "DONE"}}`,
      ),
    ]);
    expect((await signed(bytes)).status).toBe(200);
    const [binary] = await rows(otherId);
    expect(binary).toMatchObject({ processing_result: 'success', body_text: null });
    expect(binary.raw_body?.equals(bytes)).toBe(true);
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
    // The reprocess is an attempt of its own; the failed delivery keeps its error.
    const attempt = (await reprocessed.json()) as { id: string; attempts: unknown[] };
    expect(attempt).toMatchObject({
      processing_result: 'success',
      reprocess_of: item.id,
      routing_outcome: 'ignored',
    });
    expect(attempt.attempts).toEqual([
      expect.objectContaining({
        id: item.id,
        processing_result: 'failed',
        processing_error: expect.stringContaining('503'),
        reprocessed: 1,
      }),
      expect.objectContaining({ id: attempt.id, processing_result: 'success', reprocess_of: item.id }),
    ]);
    expect(tap.routed.get(event.eventId)).toBe(1);
    // Routed now, with billing's answer on record: it is not routed again.
    const again = await admin(`/admin/v1/webhook-events/${item.id}/reprocess`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'ErrWebhookAlreadyRouted', routed_by: attempt.id });
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
    expect(await results(event.eventId)).toEqual(['failed', 'success']);
    expect(tap.routed.get(event.eventId)).toBe(1);
    expect(await claim(event.eventId)).toBeDefined();
    expect(await send(event)).toEqual({ status: 200, body: '' });
    expect(await results(event.eventId)).toEqual(['failed', 'success', 'duplicate']);
  });
});

/**
 * The intake's own code in this process against the real database, with the answer of a claim lost
 * as a connection cut loses it. The fault suite saw 9 of 40 events routed twice under a Postgres
 * cut: two deliveries of one event received in the same millisecond, whose claims both failed, each
 * took the other's row for its own. These cases replay that precisely.
 */
describe('webhook intake when a claim loses its answer', () => {
  const secret = 'in-process-webhook-secret';
  let dataSource: DataSource;

  /** The real repository; the next claim fails the way `loss` says. */
  class LossyRepository extends WebhookEventsRepository {
    loss: 'none' | 'before' | 'after' = 'none';
    private otherClaimDone!: () => void;
    /** Settles once a claim other than the failing one has been made. */
    readonly otherClaim = new Promise<void>((resolve) => (this.otherClaimDone = resolve));

    override async claim(webhook: ReceivedWebhook, id: string): Promise<boolean> {
      const loss = this.loss;
      this.loss = 'none';
      if (loss === 'before') {
        // The statement never reached the server; the error comes once the other delivery claimed.
        await this.otherClaim;
        throw new Error('Connection terminated unexpectedly');
      }
      const claimed = await super.claim(webhook, id);
      if (loss === 'after') throw new Error('Connection terminated unexpectedly');
      this.otherClaimDone();
      return claimed;
    }
  }

  function intake(repository: WebhookEventsRepository) {
    const routed: string[] = [];
    const keys = new Set<string>();
    const idempotency = {
      claim: (_source: string, id: string) =>
        Promise.resolve(keys.has(id) ? 'exists' : (keys.add(id), 'acquired')),
      release: (_source: string, id: string) => Promise.resolve(void keys.delete(id)),
    } as unknown as WebhookIdempotency;
    const router = {
      route: (event: { event_id: string }) => {
        routed.push(event.event_id);
        return Promise.resolve({ outcome: 'ignored', detail: 'stand-in' });
      },
    } as unknown as BillingRouter;
    return {
      sut: new WebhookIntakeService(repository, idempotency, router, { mode: 'signature', secret }),
      routed,
    };
  }

  /** Two deliveries of one new event, received in the same millisecond. */
  async function deliverTwiceAtOnce(sut: WebhookIntakeService) {
    const eventId = `evt_${uuidv7()}`;
    const rawBody = Buffer.from(
      JSON.stringify({
        eventId,
        eventType: 'PAYMENT.DONE',
        createdAt: new Date().toISOString(),
        data: { orderId: `order_${uuidv7()}`, paymentKey: 'pay_x', approvedAt: new Date().toISOString() },
      }),
    );
    const signature = createHmac('sha256', secret).update(rawBody).digest('hex');
    jest.useFakeTimers({
      now: Date.now(),
      // Only the clock stands still: every timer runs as usual.
      doNotFake: [
        'setTimeout',
        'clearTimeout',
        'setInterval',
        'clearInterval',
        'setImmediate',
        'clearImmediate',
        'nextTick',
        'queueMicrotask',
        'hrtime',
        'performance',
      ],
    });
    try {
      const answers = await Promise.all([
        sut.receive({ rawBody, signature }),
        sut.receive({ rawBody, signature }),
      ]);
      return { eventId, answers: answers.map((answer) => answer.kind).sort() };
    } finally {
      jest.useRealTimers();
    }
  }

  const results = async (eventId: string) =>
    (
      await dataSource.query<{ processing_result: string }[]>(
        `SELECT processing_result FROM webhook.webhook_events WHERE external_event_id = $1 ORDER BY processing_result`,
        [eventId],
      )
    ).map((row) => row.processing_result);

  beforeAll(async () => {
    dataSource = await openDataSource();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it.each<[string, 'before' | 'after']>([
    ['one claim is lost before it reached the database', 'before'],
    ['the answer of a claim that committed is lost (and the event is not lost either)', 'after'],
  ])('routes the event once when %s', async (_case, loss) => {
    const repository = new LossyRepository(dataSource);
    repository.loss = loss;
    const { sut, routed } = intake(repository);
    const { eventId, answers } = await deliverTwiceAtOnce(sut);
    expect(routed.filter((id) => id === eventId)).toEqual([eventId]);
    expect(answers).toEqual(['accepted', 'duplicate']);
    expect(await results(eventId)).toEqual(['duplicate', 'success']);
  });
});
