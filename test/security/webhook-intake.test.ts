import { INTERNAL_TOKEN_HEADER, PROVIDER_SIGNATURE_HEADER, type ServiceName } from '@lib/contracts';
import { SchedulerRegistry } from '@nestjs/schedule';
import { RetentionSweep } from '@lib/runtime';
import { createHash, randomBytes } from 'node:crypto';
import { type IncomingHttpHeaders, request } from 'node:http';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { WEBHOOK_PATH } from '../../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { WebhookEventsRepository } from '../../apps/webhook-intake/src/webhooks/webhook-events.repository';
import { webhookEventsRetention } from '../../apps/webhook-intake/src/webhooks/webhook-events-retention';
import { type AppProcess, startApp } from '../support/app-process';
import { openDataSource } from '../support/database';
import { sendJson } from '../support/http-json';
import { signInternalToken } from '../support/internal-tokens';
import { waitFor } from '../support/wait';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const MIB = 1024 * 1024;
const RATE_LIMIT_PER_MINUTE = 20;
/** The retention the running app applies, every second: ten years, so it touches only this file's old rows. */
const APP_RETENTION_DAYS = 3650;
/** How long a request may take to be answered before the test calls it unanswered. */
const ANSWER_DEADLINE_MS = 10_000;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A POST over a connection of its own (from `localAddress`), as an attacker sends it: `body`, or
 * with null the head alone (a declared Content-Length is then never sent). No answer within the
 * deadline fails the test.
 */
function attack(
  url: string,
  headers: Record<string, string | number>,
  body: Buffer | null,
  localAddress = '127.0.0.1',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer within ${ANSWER_DEADLINE_MS} ms`)),
      ANSWER_DEADLINE_MS,
    );
    const outgoing = request(url, { method: 'POST', headers, agent: false, localAddress }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text });
      });
    });
    outgoing.on('error', reject);
    if (body) outgoing.end(body);
    else outgoing.flushHeaders();
  });
}

/**
 * Streams `total` bytes as a chunked body (fetch, as the provider's client sends), 64 KiB a piece
 * as the connection takes them. Returns the answer and how much of the body had been handed to the
 * connection when it came: a server that reads the whole body answers only after the last piece.
 */
async function streamChunked(
  url: string,
  headers: Record<string, string>,
  total: number,
): Promise<{ response: Response; sentBeforeAnswer: number }> {
  let sent = 0;
  const piece = randomBytes(64 * 1024);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += piece.length;
      controller.enqueue(piece);
    },
  });
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
    signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
  });
  return { response, sentBeforeAnswer: sent };
}

/**
 * Webhook storage, and access checked before the body is read: what anyone who can reach `POST /webhooks/provider`
 * can make the intake read, store and do without the provider's secret, against the real app.
 */
describe('webhook intake against unauthenticated callers', () => {
  let intake: AppProcess;
  let dataSource: DataSource;
  let url: string;

  beforeAll(async () => {
    dataSource = await openDataSource();
    intake = await startApp('webhook-intake', {
      PROVIDER_WEBHOOK_VERIFICATION: 'signature',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
      WEBHOOK_EVENTS_RETENTION_DAYS: String(APP_RETENTION_DAYS),
      WEBHOOK_EVENTS_RETENTION_CRON: '* * * * * *',
    });
    url = `${intake.url}${WEBHOOK_PATH}`;
  });

  afterAll(async () => {
    await intake?.stop();
    await dataSource?.destroy();
  });

  /** Rows whose Provider-Signature header was `signature` (each attack sends its own marker there). */
  const recorded = (signature: string) =>
    dataSource.query<
      {
        id: string;
        payload: unknown;
        raw_body: Buffer | null;
        body_bytes: number;
        body_sha256: string | null;
        body_excerpt: Buffer | null;
        external_event_id: string | null;
        signature_valid: boolean;
        row_bytes: number;
      }[]
    >(
      `SELECT e.*, pg_column_size(e.*) AS row_bytes FROM webhook.webhook_events e
        WHERE signature = $1 OR signature LIKE $1 || ':%'`,
      [signature],
    );

  it('keeps the size, SHA-256 and first 4 KiB of a forged megabyte: 401, and nothing more of it', async () => {
    // Random bytes do not compress, so the row's own size shows what was kept.
    const body = randomBytes(1_000_000);
    const marker = `forged-${uuidv7()}`;
    const answer = await attack(
      url,
      { 'content-type': 'application/json', [PROVIDER_SIGNATURE_HEADER]: marker },
      body,
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'ErrInvalidSignature', status: 401 });

    const [row, ...others] = await recorded(marker);
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      signature_valid: false,
      payload: null,
      raw_body: null,
      external_event_id: null,
      body_bytes: body.length,
      body_sha256: createHash('sha256').update(body).digest('hex'),
    });
    expect(row.body_excerpt?.equals(body.subarray(0, 4096))).toBe(true);
    expect(row.row_bytes).toBeLessThan(4096 + 1024);

    // The operator tools show what was kept.
    const view = await fetch(`${intake.url}/admin/v1/webhook-events/${row.id}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await view.json()).toMatchObject({
      body_bytes: body.length,
      body_sha256: row.body_sha256,
      body_excerpt: body.subarray(0, 4096).toString('base64'),
      payload: null,
      raw_body: null,
    });
  });

  it('refuses a body declared over 1 MiB at once, without waiting for it, and records nothing', async () => {
    const marker = `declared-${uuidv7()}`;
    // The head alone: an intake that waited for the body would never answer.
    const answer = await attack(
      url,
      { 'content-length': MIB + 1, [PROVIDER_SIGNATURE_HEADER]: marker },
      null,
    );
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'ErrPayloadTooLarge', instance: WEBHOOK_PATH });
    expect(await recorded(marker)).toEqual([]);
  });

  it('cuts a chunked body off at 1 MiB: 413 while it is still being sent, the connection closed, nothing recorded', async () => {
    const marker = `chunked-${uuidv7()}`;
    const total = 64 * MIB;
    const { response, sentBeforeAnswer } = await streamChunked(
      url,
      { [PROVIDER_SIGNATURE_HEADER]: marker },
      total,
    );
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toMatchObject({ code: 'ErrPayloadTooLarge' });
    expect(sentBeforeAnswer).toBeLessThan(total);
    expect(await recorded(marker)).toEqual([]);
  });

  it('answers more than the limit of requests a minute from one address 429 with Retry-After, before reading, unrecorded', async () => {
    const marker = `flood-${uuidv7()}`;
    const attacker = '127.0.0.2';
    const forged = (i: number, body: Buffer | null = Buffer.from('{}')) =>
      attack(
        url,
        {
          'content-type': 'application/json',
          'content-length': body?.length ?? MIB,
          [PROVIDER_SIGNATURE_HEADER]: `${marker}:${i}`,
          // Spoofed per request: no proxy is trusted (TRUST_PROXY_HOPS=0), so it changes nothing.
          'x-forwarded-for': `198.51.100.${i % 250}`,
        },
        body,
        attacker,
      );
    for (let i = 0; i < RATE_LIMIT_PER_MINUTE; i += 1) expect((await forged(i)).status).toBe(401);

    // Over the limit, with a megabyte declared and never sent: refused on the head alone.
    const refused = await forged(RATE_LIMIT_PER_MINUTE, null);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'ErrRateLimited', status: 429 });
    expect((await forged(RATE_LIMIT_PER_MINUTE + 1)).status).toBe(429);

    // Another address has a minute of its own.
    const neighbour = await attack(
      url,
      { [PROVIDER_SIGNATURE_HEADER]: `${marker}:n` },
      Buffer.from('{}'),
      '127.0.0.3',
    );
    expect(neighbour.status).toBe(401);
    // The limited requests left no rows: the first LIMIT and the neighbour's.
    expect(await recorded(marker)).toHaveLength(RATE_LIMIT_PER_MINUTE + 1);
  });

  describe('retention of webhook_events', () => {
    /**
     * Inserts rows of `source`, each with `days` since its last change; returns their ids by label.
     * `duplicateOf` names a row inserted before it, `deliveryOf` one whose event this row delivers too.
     */
    async function seed(
      source: string,
      rows: {
        label: string;
        result: 'pending' | 'success' | 'failed' | 'duplicate';
        signed: boolean;
        days: number;
        duplicateOf?: string;
        deliveryOf?: string;
      }[],
    ): Promise<Map<string, string>> {
      const ids = new Map<string, string>();
      for (const row of rows) {
        const id = uuidv7();
        ids.set(row.label, id);
        const event = `evt_${row.deliveryOf ? ids.get(row.deliveryOf) : id}`;
        await dataSource.query(
          `INSERT INTO webhook.webhook_events (id, source, external_event_id, signature_valid, body_bytes,
             processing_result, duplicate_of, received_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, 2, $5, $6, now() - make_interval(days => $7), now() - make_interval(days => $7),
                   now() - make_interval(days => $7))`,
          [
            id,
            source,
            row.signed ? event : null,
            row.signed,
            row.result,
            row.duplicateOf ? ids.get(row.duplicateOf) : null,
            row.days,
          ],
        );
      }
      return ids;
    }

    const remaining = async (source: string) =>
      (
        await dataSource.query<{ id: string }[]>(`SELECT id FROM webhook.webhook_events WHERE source = $1`, [
          source,
        ])
      ).map((row) => row.id);

    it('the running app deletes final rows older than WEBHOOK_EVENTS_RETENTION_DAYS on its schedule', async () => {
      const source = `retention-app-${Date.now()}`;
      const old = APP_RETENTION_DAYS + 1;
      const ids = await seed(source, [
        { label: 'processed', result: 'success', signed: true, days: old },
        { label: 'forged', result: 'failed', signed: false, days: old },
        { label: 'failed', result: 'failed', signed: true, days: old },
        { label: 'pending', result: 'pending', signed: true, days: old },
        { label: 'recent', result: 'success', signed: true, days: APP_RETENTION_DAYS - 1 },
      ]);
      const kept = ['failed', 'pending', 'recent'].map((label) => ids.get(label));
      await waitFor('the retention job to run', async () => (await remaining(source)).length === kept.length);
      expect((await remaining(source)).sort()).toEqual(kept.sort());
    });

    it('deletes exactly the final rows past retention, in batches, with two replicas at it at once', async () => {
      const source = `retention-${Date.now()}`;
      const days = 30;
      const ids = await seed(source, [
        { label: 'processed', result: 'success', signed: true, days: days + 1 },
        {
          label: 'its duplicate',
          result: 'duplicate',
          signed: true,
          days: days + 1,
          duplicateOf: 'processed',
        },
        { label: 'forged', result: 'failed', signed: false, days: days + 1 },
        // Kept: not final, however old.
        { label: 'failed', result: 'failed', signed: true, days: 400 },
        { label: 'pending', result: 'pending', signed: true, days: 400 },
        // Deleted: a duplicate is final, whatever became of the row it duplicates (kept, failed).
        { label: 'failed original', result: 'failed', signed: true, days: 400 },
        {
          label: 'its old duplicate',
          result: 'duplicate',
          signed: true,
          days: 400,
          duplicateOf: 'failed original',
        },
        // Kept: final, but within retention.
        { label: 'recent processed', result: 'success', signed: true, days: days - 1 },
        { label: 'recent forged', result: 'failed', signed: false, days: days - 1 },
        // Kept while a duplicate within retention still points to it.
        { label: 'old original', result: 'success', signed: true, days: days + 1 },
        {
          label: 'recent duplicate',
          result: 'duplicate',
          signed: true,
          days: days - 1,
          duplicateOf: 'old original',
        },
        // A failed delivery is final once a later delivery of its event routed it: deleted past
        // retention, whatever the age of the routed one (which goes too when past retention).
        { label: 'failed, routed since', result: 'failed', signed: true, days: days + 1 },
        {
          label: 'routed since',
          result: 'success',
          signed: true,
          days: days - 1,
          deliveryOf: 'failed, routed since',
        },
        { label: 'recent failed, routed since', result: 'failed', signed: true, days: days - 1 },
        {
          label: 'recently routed',
          result: 'success',
          signed: true,
          days: days - 1,
          deliveryOf: 'recent failed, routed since',
        },
        { label: 'old failed, routed since', result: 'failed', signed: true, days: days + 2 },
        {
          label: 'old routed',
          result: 'success',
          signed: true,
          days: days + 1,
          deliveryOf: 'old failed, routed since',
        },
      ]);
      // And more than a batch of processed rows past retention.
      await dataSource.query(
        `INSERT INTO webhook.webhook_events (id, source, external_event_id, signature_valid, body_bytes,
           processing_result, received_at, updated_at)
         SELECT gen_random_uuid(), $1, 'bulk_' || n, true, 2, 'success', now() - interval '40 days',
                now() - interval '40 days'
           FROM generate_series(1, 2500) n`,
        [source],
      );

      const replicas = await Promise.all([openDataSource(), openDataSource()]);
      try {
        const sweeps = replicas.map(
          (replica) =>
            new RetentionSweep(
              replica,
              new SchedulerRegistry(),
              webhookEventsRetention(new WebhookEventsRepository(replica), days),
              { name: 'webhook-intake-retention', cron: '15 4 * * *' },
            ),
        );
        await Promise.all(sweeps.map((sweep) => sweep.runOnce()));
      } finally {
        await Promise.all(replicas.map((replica) => replica.destroy()));
      }

      const kept = [
        'failed',
        'pending',
        'failed original',
        'recent processed',
        'recent forged',
        'old original',
        'recent duplicate',
        'routed since',
        'recent failed, routed since',
        'recently routed',
      ].map((label) => ids.get(label));
      expect((await remaining(source)).sort()).toEqual(kept.sort());
    });
  });
});

describe("billing's provider-events route against other services", () => {
  let billing: AppProcess;
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = await startApp('billing');
  });

  afterAll(async () => {
    await billing?.stop();
    await dataSource?.destroy();
  });

  /** A PAYMENT.DONE for an order billing never made, sent to billing's internal route as `caller`. */
  async function routeAs(caller: ServiceName, eventId: string) {
    const token = await signInternalToken({ kind: 'service', service: caller }, 'billing');
    return sendJson(
      `${billing.url}/internal/v1/provider-events`,
      'POST',
      {
        event_id: eventId,
        event_type: 'PAYMENT.DONE',
        data: {
          paymentKey: `pay_${uuidv7()}`,
          orderId: `order_${uuidv7()}`,
          status: 'DONE',
          approvedAt: new Date().toISOString(),
          totalAmount: 9_900,
          customerKey: 'user_x',
        },
      },
      { [INTERNAL_TOKEN_HEADER]: token },
    );
  }

  const applied = (eventId: string) =>
    dataSource.query<{ event_id: string }[]>(
      `SELECT event_id FROM billing.provider_events WHERE event_id = $1`,
      [eventId],
    );

  it("refuses every service's token but the webhook intake's: 403, and nothing is applied", async () => {
    const others: ServiceName[] = ['gateway', 'recovery', 'licensing', 'notifier', 'billing'];
    for (const caller of others) {
      const eventId = `evt_${caller}_${uuidv7()}`;
      const answer = await routeAs(caller, eventId);
      expect({ caller, status: answer.status, code: answer.body.code }).toEqual({
        caller,
        status: 403,
        code: 'ErrForbidden',
      });
      expect(await applied(eventId)).toEqual([]);
    }
    const eventId = `evt_intake_${uuidv7()}`;
    const answer = await routeAs('webhook-intake', eventId);
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'ignored' } });
    expect(await applied(eventId)).toEqual([{ event_id: eventId }]);
  });
});
