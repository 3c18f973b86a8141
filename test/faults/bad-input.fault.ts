import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import type { DataSource } from 'typeorm';
import { PROVIDER_SIGNATURE_HEADER } from '@lib/contracts';
import { WEBHOOK_PATH } from '../../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type AppProcess, startApp } from '../support/app-process';
import { openDataSource } from '../support/database';
import { GatewayStack, type LoggedIn } from '../support/gateway-stack';
import { waitFor } from '../support/wait';
import { recordOutcome } from './support/fault-report';
import {
  type BadRequest,
  deeplyNested,
  HOSTILE_OBJECTS,
  HOSTILE_STRINGS,
  type Operation,
  oversize,
  readOperations,
  type RequestContext,
  RawJson,
  requestsFor,
  toJsonText,
  unparsable,
  withDescription,
} from './support/openapi-operations';

/** Fixed, so a failure reproduces; BAD_INPUT_SEED=<seed> replays another run. */
const SEED = Number(process.env.BAD_INPUT_SEED ?? 913_2025);
const RUNS_PER_OPERATION = 60;
const WEBHOOK_RUNS = 80;
const OVERSIZE_HEAD_RUNS = 10;
const ALL_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];
/** Platform users of this run only, so the fingerprint's rows are this suite's. */
const RUN = String(Date.now()).slice(-12);
const OWNER = `41${RUN}0001`;
const MEMBER = `41${RUN}0002`;

const operations = readOperations();

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** The generators' context, and what the fingerprint scopes to. */
interface Fixtures extends RequestContext {
  owner: LoggedIn;
  member: LoggedIn;
  guildIds: string[];
  platformGuildIds: string[];
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(
  baseUrl: string,
  request: { method: string; target: string; headers: Record<string, string>; body?: string },
): Promise<Answer> {
  const url = new URL(baseUrl);
  const payload = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.target,
        agent,
        timeout: 30_000,
        headers: { ...request.headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.once('error', reject);
      },
    );
    outgoing.once('timeout', () => outgoing.destroy(new Error('no answer within 30 s')));
    outgoing.once('error', reject);
    outgoing.end(payload);
  });
}

/** What is wrong with an answer: a 5xx, a 4xx that is not RFC 9457, or bad input accepted. */
function answerViolations(answer: Answer, defects: string[]): string[] {
  const problems: string[] = [];
  // docs/behaviour.md §4.9: a verified webhook whose data billing refuses is a routing failure, answered 500 so
  // that the provider resends it; its problem body says so.
  const refusedWebhook = answer.status === 500 && answer.text.includes('"code":"ErrWebhookRefused"');
  if (answer.status >= 500 && !refusedWebhook) problems.push(`answered ${answer.status}`);
  if (answer.status === 0) problems.push('no answer');
  if (answer.status >= 400 && answer.status < 500) {
    if (!answer.contentType.startsWith('application/problem+json')) {
      problems.push(`a ${answer.status} with content-type "${answer.contentType}"`);
    }
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(answer.text) as Record<string, unknown>;
    } catch {
      problems.push(`a ${answer.status} whose body is not JSON`);
    }
    if (body) {
      for (const member of ['type', 'title', 'detail'] as const) {
        if (typeof body[member] !== 'string') problems.push(`problem body without a string "${member}"`);
      }
      if (body.status !== answer.status)
        problems.push(`problem status ${String(body.status)} on a ${answer.status}`);
    }
  }
  if (defects.length > 0 && answer.status > 0 && answer.status < 400) {
    problems.push(`bad input accepted with ${answer.status}`);
  }
  return problems;
}

/**
 * The business rows this suite's fixtures own, per table: a count and a digest of the rows. Scoped
 * by the guilds, users and platform ids of this run (and every id the generators sent), so other
 * suites writing to the same database do not move it. Left out, because they change by design
 * without any request of ours changing business state:
 * - identity.key_values, webhook.key_values: sessions, OAuth states and rate-limit counters (used
 *   only without Redis); every request may touch them.
 * - each schema’s processed_events: consumer bookkeeping keyed by event id for every suite's events; an
 *   event of ours would first show as an outbox row, which is counted.
 * - outbox rows of other keys, outbox `sent_at`: the relay's bookkeeping.
 * - recovery.scheduled_snapshot_runs, `scheduled` snapshots and their SnapshotCreated events (outbox,
 *   audit log): the daily job plans a run for every guild every 30 s and snapshots around midnight.
 * - notification.notifications status, attempts, lease, sent_at: the DM sender's retries; the rows
 *   themselves (which DM for which event) are counted.
 * - webhook.webhook_events: intake records every request, forged ones included (docs/behaviour.md §2.8).
 * - the migrations tables.
 */
const SCHEDULED_SNAPSHOT_EVENT = (payload: string) =>
  `event_type = 'SnapshotCreated' AND ${payload}->>'trigger' = 'scheduled'`;
const FINGERPRINT_SQL = `
WITH g AS (SELECT unnest($1::uuid[]) AS id),
     gt AS (SELECT id::text AS id FROM g),
     u AS (SELECT unnest($2::uuid[]) AS id),
     pu AS (SELECT unnest($3::text[]) AS id),
     pg AS (SELECT unnest($4::text[]) AS id),
     subs AS (SELECT id FROM billing.subscriptions WHERE guild_id IN (SELECT id FROM g) OR payer_user_id IN (SELECT id FROM u))
${[
  [
    'recovery.guilds',
    't',
    `id IN (SELECT id FROM g) OR owner_platform_user_id IN (SELECT id FROM pu) OR platform_guild_id IN (SELECT id FROM pg)`,
  ],
  [
    'recovery.snapshots',
    't',
    `(guild_id IN (SELECT id FROM g) OR created_by_user IN (SELECT id FROM u)) AND trigger <> 'scheduled'`,
  ],
  ['recovery.restore_jobs', 't', `guild_id IN (SELECT id FROM g) OR requested_by_user IN (SELECT id FROM u)`],
  ['recovery.antinuke_settings', 't', `guild_id IN (SELECT id FROM g)`],
  ['recovery.antinuke_incidents', 't', `guild_id IN (SELECT id FROM g)`],
  [
    'recovery.antinuke_incident_targets',
    't',
    `incident_id IN (SELECT id FROM recovery.antinuke_incidents WHERE guild_id IN (SELECT id FROM g))`,
  ],
  ['recovery.antinuke_quarantines', 't', `guild_id IN (SELECT id FROM g)`],
  ['recovery.antinuke_lockdowns', 't', `guild_id IN (SELECT id FROM g)`],
  ['recovery.live_sync_pauses', 't', `guild_id IN (SELECT id FROM g)`],
  ['recovery.platform_id_replacements', 't', `guild_id IN (SELECT id FROM g)`],
  [
    'recovery.outbox',
    'row(t.id)',
    `message_key IN (SELECT id FROM gt) AND created_at >= $5 AND NOT (${SCHEDULED_SNAPSHOT_EVENT("envelope->'payload'")})`,
  ],
  ['billing.subscriptions', 't', `id IN (SELECT id FROM subs)`],
  ['billing.billing_keys', 't', `user_id IN (SELECT id FROM u)`],
  ['billing.payment_attempts', 't', `subscription_id IN (SELECT id FROM subs)`],
  ['billing.outbox', 'row(t.id)', `message_key IN (SELECT id FROM gt) AND created_at >= $5`],
  ['licensing.licenses', 't', `guild_id IN (SELECT id FROM g)`],
  ['licensing.plans', 't', `true`],
  ['licensing.outbox', 'row(t.id)', `message_key IN (SELECT id FROM gt) AND created_at >= $5`],
  ['notification.notification_preferences', 't', `user_id IN (SELECT id FROM u)`],
  [
    'notification.notifications',
    'row(t.id, t.event_id, t.template, t.content)',
    `recipient_user_id IN (SELECT id FROM u) OR guild_id IN (SELECT id FROM gt)`,
  ],
  [
    'notification.audit_log',
    't',
    `guild_id IN (SELECT id FROM gt) AND NOT (${SCHEDULED_SNAPSHOT_EVENT('payload')})`,
  ],
  ['identity.users', 't', `id IN (SELECT id FROM u) OR platform_user_id IN (SELECT id FROM pu)`],
]
  .map(
    ([table, row, where]) =>
      `SELECT '${table}' AS scope, count(*)::int AS rows,
              md5(coalesce(string_agg(md5((${row})::text), ',' ORDER BY md5((${row})::text)), '')) AS digest
         FROM ${table} t WHERE ${where}`,
  )
  .join('\nUNION ALL\n')}`;

type Fingerprint = Record<string, string>;

function fingerprintDifference(before: Fingerprint, after: Fingerprint): string[] {
  return Object.keys({ ...before, ...after })
    .filter((scope) => before[scope] !== after[scope])
    .map((scope) => `${scope}: ${before[scope] ?? '-'} -> ${after[scope] ?? '-'}`);
}

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const DIGITS_IN_JSON = /"([0-9]{1,20})"/g;

/** The public API under malformed, oversize, wrong-type and injection input. */
describe('bad input across the public API', () => {
  const stack = new GatewayStack();
  let dataSource: DataSource;
  let intake: AppProcess;
  let fixtures: Fixtures;
  let baseline: Fingerprint;
  let current: Fingerprint;
  let since: Date;
  /** Every uuid and digit string the generators sent: rows keyed by them are watched too. */
  const sentUuids = new Set<string>();
  const sentDigits = new Set<string>();
  const tally = { sent: 0, asDesigned: 0, failed: 0, shrinkRequests: 0, byStatus: new Map<number, number>() };
  const failures: string[] = [];
  const users = () => [fixtures.owner.user.id, fixtures.member.user.id];

  async function fingerprint(): Promise<Fingerprint> {
    const rows = await dataSource.query<{ scope: string; rows: number; digest: string }[]>(FINGERPRINT_SQL, [
      [...fixtures.guildIds, ...sentUuids],
      users(),
      [OWNER, MEMBER],
      [...fixtures.platformGuildIds, ...sentDigits],
      since,
    ]);
    return Object.fromEntries(rows.map((row) => [row.scope, `${row.rows}:${row.digest.slice(0, 12)}`]));
  }

  /** Polls until the fixtures' rows stop moving (events consumed, DMs recorded), then returns them. */
  async function settledFingerprint(): Promise<Fingerprint> {
    let last = await fingerprint();
    let stableSince = Date.now();
    return waitFor(
      'the fixtures to settle',
      async () => {
        const now = await fingerprint();
        if (fingerprintDifference(last, now).length > 0) {
          last = now;
          stableSince = Date.now();
          return undefined;
        }
        return Date.now() - stableSince >= 5_000 ? now : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
  }

  function track(text: string): void {
    for (const match of text.matchAll(UUID_IN_TEXT)) sentUuids.add(match[0].toLowerCase());
    for (const match of text.matchAll(DIGITS_IN_JSON)) sentDigits.add(match[1]);
  }

  async function expectOk(method: string, path: string, body?: unknown, status = 200) {
    const response = await stack.request(method, path, { token: fixtures.owner.token, body });
    if (response.status !== status) throw new Error(`${method} ${path}: ${JSON.stringify(response)}`);
    return response.body;
  }

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    intake = await startApp('webhook-intake', { BILLING_URL: stack.billing.url });
    const main = stack.platform.seedGuild({
      name: `Bad input ${RUN}`,
      owner: { id: OWNER, username: 'bad-input-owner' },
      roles: [{ name: 'Member' }],
      channels: [{ name: 'general', topic: 'hello' }],
      members: [{ username: 'bad-input-member', id: MEMBER, roles: ['Member'] }],
    });
    const free = stack.platform.seedGuild({
      name: `Bad input free ${RUN}`,
      owner: { id: OWNER, username: 'bad-input-owner' },
      members: [{ username: 'bad-input-member', id: MEMBER }],
    });
    const owner = await stack.login(OWNER);
    const member = await stack.login(MEMBER);
    fixtures = {
      owner,
      member,
      ownerToken: owner.token,
      memberToken: member.token,
      references: {},
      guildIds: [],
      platformGuildIds: [main.guildId, free.guildId],
    };

    const guildId = (await expectOk('POST', '/api/v1/guilds', { platform_guild_id: main.guildId }))
      .id as string;
    const freeGuildId = (await expectOk('POST', '/api/v1/guilds', { platform_guild_id: free.guildId }))
      .id as string;
    fixtures.guildIds = [guildId, freeGuildId];
    const prepared = await expectOk('GET', `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`);
    const customerKey = prepared.customer_key as string;
    const confirmed = await expectOk('POST', '/api/v1/billing/confirm', {
      checkout_id: prepared.checkout_id,
      auth_key: stack.provider.authorizeCard({ customerKey }),
      customer_key: customerKey,
      guild_id: guildId,
      plan_code: 'PRO',
    });
    await waitFor('the licence to follow the subscription', async () => {
      const license = await stack.request('GET', `/api/v1/guilds/${guildId}/license`, { token: owner.token });
      return (license.body.plan as { code?: string } | undefined)?.code === 'PRO';
    });
    const snapshotId = (
      await expectOk('POST', `/api/v1/guilds/${guildId}/snapshots`, { description: 'fixture' })
    ).id as string;
    const preview = await expectOk('POST', '/api/v1/restore/preview', {
      snapshot_id: snapshotId,
      scope: ALL_SCOPES,
    });
    const job = await expectOk(
      'POST',
      '/api/v1/restore/start',
      { snapshot_id: snapshotId, scope: ALL_SCOPES, approved_diff_hash: preview.diff_hash },
      202,
    );
    const jobId = job.id as string;
    await waitFor(
      'the fixture restore to end',
      async () => {
        const read = await stack.request('GET', `/api/v1/restore/${jobId}`, { token: owner.token });
        return read.body.status === 'completed';
      },
      { timeoutMs: 90_000 },
    );
    await waitFor(
      'the fixtures’ events in the audit log',
      async () => {
        const audit = await stack.request('GET', `/api/v1/guilds/${guildId}/audit-log?limit=200`, {
          token: owner.token,
        });
        const types = new Set(
          (audit.body.items as { event_type: string }[] | undefined)?.map((e) => e.event_type),
        );
        return ['SubscriptionStarted', 'SnapshotCreated', 'RestoreCompleted'].every((type) =>
          types.has(type),
        );
      },
      { timeoutMs: 90_000 },
    );
    // A page cursor as the API hands it out, for the generators to tamper with.
    const page = await expectOk('GET', `/api/v1/guilds/${guildId}/audit-log?limit=1`);
    if (typeof page.next_cursor !== 'string') throw new Error(`no next_cursor: ${JSON.stringify(page)}`);
    // By the name the document gives a parameter or field: values that exist and are the owner's.
    fixtures.references = {
      cursor: [page.next_cursor],
      guildId: [guildId, freeGuildId],
      guild_id: [guildId, freeGuildId],
      snapshotId: [snapshotId],
      snapshot_id: [snapshotId],
      jobId: [jobId],
      id: [confirmed.id as string],
      platform_guild_id: [main.guildId, free.guildId],
      customer_key: [customerKey],
      // Taken by the confirm above: every later use is refused as already used.
      checkout_id: [prepared.checkout_id as string],
      approved_diff_hash: [preview.diff_hash as string],
      // Never issued during the run: every auth key sent is unknown to the provider.
      auth_key: [],
    };
    since = (await dataSource.query<{ now: Date }[]>('SELECT now() AS now'))[0].now;
    baseline = await settledFingerprint();
    current = baseline;
    process.stdout.write(
      `bad input: seed=${SEED}, ${operations.length} operations from the OpenAPI document, ${RUNS_PER_OPERATION} runs each\n`,
    );
  });

  afterAll(async () => {
    agent.destroy();
    await intake?.stop();
    await stack.stop();
    await dataSource?.destroy();
  });

  /** Sends one request and checks every property; throws (for fast-check) on the first violation. */
  async function check(request: BadRequest, target: string, failedBefore: boolean): Promise<void> {
    track(`${request.target} ${request.body && request.body.length < 256 * 1024 ? request.body : ''}`);
    const answer = await send(target, request).catch((error: unknown): Answer => ({
      status: 0,
      contentType: '',
      text: String(error),
    }));
    const after = await fingerprint();
    const changed = fingerprintDifference(current, after);
    current = after;
    const problems = answerViolations(answer, request.defects);
    if (changed.length) problems.push(`rows changed: ${changed.join('; ')}`);
    if (failedBefore) tally.shrinkRequests++;
    else {
      tally.sent++;
      tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
      if (problems.length === 0) tally.asDesigned++;
      else {
        tally.failed++;
        failures.push(
          `${request.method} ${request.target.slice(0, 200)} -> ${answer.status}: ${problems.join(', ')}`,
        );
      }
    }
    if (problems.length) {
      throw new Error(
        `${problems.join('; ')}\n  answer ${answer.status} ${answer.contentType}: ${answer.text.slice(0, 800)}`,
      );
    }
  }

  /** fast-check over `requests`, each sent to `baseUrl` and checked; after a failure, it shrinks. */
  async function assertEvery(requests: fc.Arbitrary<BadRequest>, baseUrl: string, numRuns: number) {
    let failed = false;
    await fc.assert(
      fc.asyncProperty(fc.limitShrink(requests, 40), async (request) => {
        try {
          await check(request, baseUrl, failed);
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
      { seed: SEED, numRuns },
    );
  }

  it.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s: no 5xx, RFC 9457 problems, no row changed',
    async (_name, operation) => {
      await assertEvery(requestsFor(operation, fixtures), stack.gateway.url, RUNS_PER_OPERATION);
    },
  );

  it('request heads over 16 KiB (path, query, header): RFC 9457 problems too', async () => {
    const target = (operation: Operation) => operation.path.replace(/\{[^}]+\}/g, fixtures.guildIds[0]);
    const overLong = fc
      .record({
        operation: fc.constantFrom(...operations.filter((operation) => !operation.path.startsWith('/auth/'))),
        where: fc.constantFrom('path', 'query', 'header'),
        size: fc.integer({ min: 17 * 1024, max: 64 * 1024 }),
      })
      .map(({ operation, where, size }) =>
        withDescription({
          operation: `${operation.method} ${operation.path}`,
          method: operation.method,
          target:
            where === 'path'
              ? `${target(operation)}${'/a'.repeat(size / 2)}`
              : where === 'query'
                ? `${target(operation)}?q=${'9'.repeat(size)}`
                : target(operation),
          persona: 'owner',
          headers: {
            authorization: `Bearer ${fixtures.owner.token}`,
            ...(where === 'header' ? { 'x-request-id': 'x'.repeat(size) } : {}),
          },
          defects: [`${where} of ${size} bytes`],
          noise: [],
        }),
      );
    await assertEvery(overLong, stack.gateway.url, OVERSIZE_HEAD_RUNS);
  });

  it('POST /webhooks/provider on webhook intake: no 5xx, RFC 9457 problems, no billing row changed', async () => {
    const eventTypes = [
      'PAYMENT.DONE',
      'PAYMENT.FAILED',
      'PAYMENT.CANCELED',
      'BILLING_KEY.DELETED',
      'UNKNOWN.TYPE',
    ];
    const envelope = fc.record(
      {
        eventId: fc.oneof(
          fc.uuid(),
          fc.constantFrom<unknown>('', 'x'.repeat(201), 1, null, ...HOSTILE_STRINGS),
        ),
        eventType: fc.oneof(
          fc.constantFrom<unknown>(...eventTypes),
          fc.constantFrom<unknown>('', 7, null, ...HOSTILE_STRINGS),
        ),
        createdAt: fc.constantFrom<unknown>(new Date().toISOString(), '2026-02-30T00:00:00Z', 'yesterday', 0),
        data: fc.oneof(
          fc.constantFrom<unknown>(...HOSTILE_OBJECTS, null, 'x', 1, []),
          fc.record(
            {
              orderId: fc.oneof(
                fc.uuid().map((id) => `order_${id}`),
                fc.constantFrom<unknown>(...HOSTILE_STRINGS, 1, null, {}),
              ),
              paymentKey: fc.oneof(fc.uuid(), fc.constantFrom<unknown>(...HOSTILE_STRINGS, [], null)),
              billingKey: fc.oneof(fc.uuid(), fc.constantFrom<unknown>(...HOSTILE_STRINGS)),
              approvedAt: fc.constantFrom<unknown>(
                new Date().toISOString(),
                '2026-02-30T00:00:00Z',
                'never',
                new RawJson('1e309'),
                -1,
              ),
              canceledAt: fc.constantFrom<unknown>(new Date().toISOString(), '0000-00-00', null),
              deletedAt: fc.constantFrom<unknown>(new Date().toISOString(), 'soon', {}),
              failure: fc.constantFrom<unknown>({ code: 'X', message: 'y' }, 'failed', null, { code: 1 }),
              status: fc.constantFrom<unknown>('DONE', 'CANCELED', 1),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      { weight: 6, arbitrary: envelope.map((value) => toJsonText(value)) },
      { weight: 1, arbitrary: unparsable.map((part) => part.body!) },
      { weight: 1, arbitrary: deeplyNested().map((nested) => nested.text) },
      { weight: 1, arbitrary: oversize(undefined).map((part) => part.body!) },
      { weight: 1, arbitrary: fc.constant('') },
    );
    const signed = fc.constantFrom(
      'valid hex',
      'valid sha256=base64',
      'none',
      'garbage',
      'wrong secret',
      'other body',
    );
    const webhook = fc
      .record({ body, signed, contentType: fc.constantFrom('application/json', 'text/plain', '') })
      .map(({ body: raw, signed: how, contentType }) => {
        const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
        const signature =
          how === 'valid hex'
            ? stack.provider.signature(raw)
            : how === 'valid sha256=base64'
              ? stack.provider.signature(raw, { encoding: 'base64', prefix: true })
              : how === 'garbage'
                ? "' OR 1=1 --"
                : how === 'wrong secret'
                  ? createHmac('sha256', 'not-the-webhook-secret').update(raw).digest('hex')
                  : how === 'other body'
                    ? stack.provider.signature('{}')
                    : undefined;
        if (signature !== undefined) headers[PROVIDER_SIGNATURE_HEADER] = signature;
        return withDescription({
          operation: `POST ${WEBHOOK_PATH}`,
          method: 'POST',
          target: WEBHOOK_PATH,
          persona: 'anonymous',
          headers,
          body: raw,
          // Anyone may call the endpoint: without the provider's signature nothing may be accepted.
          defects: how.startsWith('valid') ? [] : [`signature: ${how}`],
          noise: how.startsWith('valid') ? [`signature: ${how}`] : [],
        });
      });
    await assertEvery(webhook, intake.url, WEBHOOK_RUNS);
  });

  it('changed no row of the fixtures, and records the outcome', async () => {
    // Events are dispatched about 2 s after their commit: watch the rows a while longer than that.
    const deadline = Date.now() + 4_000;
    let last = await fingerprint();
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      last = await fingerprint();
      if (fingerprintDifference(baseline, last).length) break;
    }
    const changed = fingerprintDifference(baseline, last);
    const byStatus = (from: number, to: number) =>
      [...tally.byStatus.entries()]
        .filter(([status]) => status >= from && status < to)
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}:${count}`)
        .join(' ') || 'none';
    recordOutcome({
      fault: 'bad input',
      checked:
        `${operations.length} operations x ${RUNS_PER_OPERATION} requests (+ webhook x ${WEBHOOK_RUNS}, ` +
        `heads over 16 KiB x ${OVERSIZE_HEAD_RUNS}): no 5xx, RFC 9457 bodies, no row changed`,
      sent: tally.sent,
      delivered: tally.asDesigned,
      duplicated: 0,
      // fast-check stops a property at its first failing request: one per failing operation.
      lost: tally.failed + (changed.length ? 1 : 0),
      notes:
        `seed=${SEED}, 4xx by status: ${byStatus(400, 500)}; 2xx/3xx: ${byStatus(200, 400)}; ` +
        `5xx: ${byStatus(500, 600)}; no answer: ${tally.byStatus.get(0) ?? 0}; ` +
        `${tally.shrinkRequests} more sent while shrinking` +
        (changed.length ? `; rows changed over the run: ${changed.join('; ')}` : '') +
        (failures.length ? `; failures: ${failures.join(' | ')}` : ''),
    });
  });
});
