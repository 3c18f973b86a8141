import 'reflect-metadata';
import '../test/support/test-env';
import {
  PROVIDER_SIGNATURE_HEADER,
  PROVIDER_WEBHOOK_SOURCE,
  type ProviderEventOutcome,
  type ProviderWebhookBody,
  type RoutedProviderEvent,
} from '@lib/contracts';
import autocannon from 'autocannon';
import Redis from 'ioredis';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { WEBHOOK_PATH } from '../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type AppProcess, freePort, runScript, startApp } from '../test/support/app-process';
import migrateTestDatabase from '../test/support/global-setup';
import { waitFor } from '../test/support/wait';

/**
 * `npm run bench:webhook`: the provider's webhook endpoint under sustained load, driven over loopback
 * by autocannon (50 connections, no pipelining), every request a distinct PAYMENT.DONE event with a
 * valid signature, so each one takes the whole path: HMAC check, Redis idempotency claim, the
 * pending row, the call to billing, the row marked success.
 *
 * Two targets take turns in the same run, each in a process of its own:
 * - intake: the real webhook-intake app as deployed: its Nest application, whose webhook endpoint is
 *   a plain route ahead of Express (`PlainRoute`), its service, repository and billing router, the
 *   request id, the metrics, the logger at `info`, the internal token;
 * - bare: a plain node:http handler doing the same work by hand (the same HMAC check, the same
 *   `SET ... EX NX`, the same INSERT and UPDATE into a copy of webhook.webhook_events with its
 *   indexes, the same POST to billing over keep-alive) with ioredis and a pg Pool of 10, the size
 *   of the app's pool. It is the floor for "these inserts on this machine".
 * The bare handler runs in a child process rather than in this one so that, like the app, it does
 * not share an event loop with autocannon and the billing stand-in; otherwise the baseline would
 * pay for the load generator and flatter the ratio.
 *
 * Billing is a stand-in in this process answering 200 `applied` at once: billing's own cost is not
 * the intake's. The figures are throughput at saturation (requests/s) and its latency; "cost per
 * request" is the inverse of throughput, so intake cost ÷ bare cost = bare req/s ÷ intake req/s.
 */
const WARM_UP_S = 5;
const DURATION_S = 10;
const CONNECTIONS = 50;
/**
 * bare, intake, bare, intake, bare, intake. Each target is reported by its fastest run: noise on a
 * shared 2-core machine (autovacuum, checkpoints, other tenants) only ever slows a run down, so the
 * fastest is the better estimate of what the code costs. Every run is printed as well.
 */
const ROUNDS = 3;
const AIM_REQUESTS_PER_S = 1_000;
const AIM_COST_RATIO = 1.5;

const BILLING_PATH = '/internal/v1/provider-events';
const BILLING_ANSWER = JSON.stringify({ outcome: 'applied', detail: 'bench' } satisfies ProviderEventOutcome);
const BARE_TABLE = 'public.bench_webhook_bare';
const INTAKE_TABLE = 'webhook.webhook_events';
const ROLE_ENV = 'WEBHOOK_BENCH_ROLE';
const IDEMPOTENCY_TTL_S = 86_400;
const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;
/** USER_HZ, what /proc counts CPU time in; 100 on Linux everywhere that matters. */
const CLOCK_TICKS_PER_S = 100;

const secret = process.env.WEBHOOK_SECRET!;

function sign(rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

// ---------------------------------------------------------------------------------------------------
// The bare handler (runs as `WEBHOOK_BENCH_ROLE=bare node -r @swc-node/register bench/webhook.bench.ts`)

async function serveBare(): Promise<void> {
  const billing = new URL(BILLING_PATH, process.env.BARE_BILLING_URL);
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const redis = new Redis(process.env.REDIS_URL!);
  const agent = new Agent({ keepAlive: true });
  await pool.query('SELECT 1');
  await redis.ping();

  const handle = async (raw: Buffer, header: string | string[] | undefined): Promise<number> => {
    const signature = typeof header === 'string' ? header : undefined;
    const received = signature && HEX_SIGNATURE.test(signature) ? Buffer.from(signature, 'hex') : null;
    const expected = createHmac('sha256', secret).update(raw).digest();
    if (!received || !timingSafeEqual(received, expected)) return 401;
    const event = JSON.parse(raw.toString('utf8')) as ProviderWebhookBody;

    const claimed = await redis.set(`idem:webhook:bare:${event.eventId}`, '1', 'EX', IDEMPOTENCY_TTL_S, 'NX');
    if (claimed !== 'OK') return 200;
    // The body is stored as received (text) beside its parsed form, as the intake does.
    const inserted = await pool.query<{ id: string }>(
      `INSERT INTO ${BARE_TABLE} (id, source, external_event_id, event_type, signature, signature_valid, payload,
         body_text, raw_body, body_bytes, processing_result, processing_error, duplicate_of, received_at,
         processed_at)
       VALUES ($1, $2, $3, $4, $5, true, $6, $7, NULL, $8, 'pending', NULL, NULL, $9, NULL)
       ON CONFLICT DO NOTHING
       RETURNING id`,
      [
        uuidv7(),
        PROVIDER_WEBHOOK_SOURCE,
        event.eventId,
        event.eventType,
        signature,
        JSON.stringify(event),
        raw.toString('utf8'),
        raw.length,
        new Date(),
      ],
    );
    const id = inserted.rows[0]?.id;
    if (!id) return 200;
    const routed = { event_id: event.eventId, event_type: event.eventType, data: event.data };
    const outcome = await postJson<ProviderEventOutcome>(
      billing,
      routed satisfies RoutedProviderEvent,
      agent,
    );
    await pool.query(
      `UPDATE ${BARE_TABLE}
          SET processing_result = 'success', processing_error = NULL, routing_outcome = $2,
              processed_at = now(), updated_at = now()
        WHERE id = $1`,
      [id, outcome.outcome],
    );
    return 200;
  };

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health/ready') {
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    readBody(req)
      .then((raw) => handle(raw, req.headers[PROVIDER_SIGNATURE_HEADER]))
      .then(
        (status) => res.writeHead(status).end(),
        (error: unknown) => {
          process.stderr.write(`bare handler: ${String(error)}\n`);
          res.writeHead(500).end();
        },
      );
  });
  await listen(server, Number(process.env.PORT));
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void Promise.allSettled([pool.end(), redis.quit()]).then(() => process.exit(0));
  });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', reject);
    req.once('end', () => resolve(Buffer.concat(chunks)));
  });
}

function postJson<T>(url: URL, body: unknown, agent: Agent): Promise<T> {
  const payload = JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        readBody(res).then((raw) => {
          if (res.statusCode !== 200) reject(new Error(`billing answered ${res.statusCode}`));
          else resolve(JSON.parse(raw.toString('utf8')) as T);
        }, reject);
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

function listen(server: Server, port = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

interface BareProcess {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

async function startBare(billingUrl: string): Promise<BareProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = runScript('bench/webhook.bench.ts', {
    [ROLE_ENV]: 'bare',
    PORT: String(port),
    BARE_BILLING_URL: billingUrl,
    CPU_PROFILE_DIR: process.env.BARE_CPU_PROFILE_DIR,
  });
  let exited = false;
  void proc.exited.then(() => (exited = true));
  const stop = async () => {
    if (exited) return;
    proc.child.kill('SIGTERM');
    const timer = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
    await proc.exited;
    clearTimeout(timer);
  };
  try {
    await waitFor('the bare handler to be ready', async () => {
      if (exited) throw new Error(`bare handler exited: ${proc.output().slice(-2000)}`);
      const response = await fetch(`${url}/health/ready`).catch(() => undefined);
      return response?.status === 200;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: proc.child.pid, stop };
}

// ---------------------------------------------------------------------------------------------------
// The driver

/** A billing that applies everything at once. */
async function startBillingStandIn(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      if (req.method === 'POST' && req.url === BILLING_PATH) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(BILLING_ANSWER);
      } else {
        res.writeHead(404).end();
      }
    });
  });
  const url = await listen(server);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Target {
  name: 'bare' | 'intake';
  url: string;
  table: string;
  pid: number | undefined;
}

interface Run {
  round: number;
  target: Target;
  result: autocannon.Result;
  answered: number;
  successRows: number;
  /** Success rows of events whose answer autocannon never read: cut off when it closed at the end. */
  cutOff: number;
  otherRows: number;
  /** CPU the target's own process used during the run, ms (undefined where /proc is not there). */
  cpuMs: number | undefined;
}

/**
 * User + system CPU of a process so far, from /proc (Linux), in ms. It shows whether a target is
 * bound by its one event loop (near 100 % of a core) and what a request costs it in CPU.
 */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is the 1st, utime the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/** Drives one target for `seconds`; each request a fresh, signed event whose id starts with `prefix`. */
async function drive(
  target: Target,
  prefix: string,
  seconds: number,
): Promise<{ result: autocannon.Result; answered: string[] }> {
  const answered: string[] = [];
  let seq = 0;
  const result = await autocannon({
    url: `${target.url}${WEBHOOK_PATH}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        setupRequest: (req, context) => {
          const eventId = `${prefix}${++seq}`;
          context.eventId = eventId;
          const body = JSON.stringify(paymentDone(eventId, seq));
          return { ...req, body, headers: { ...req.headers, [PROVIDER_SIGNATURE_HEADER]: sign(body) } };
        },
        onResponse: (status, _body, context) => {
          if (status >= 200 && status < 300 && typeof context.eventId === 'string') {
            answered.push(context.eventId);
          }
        },
      },
    ],
  });
  return { result, answered };
}

function paymentDone(eventId: string, seq: number): ProviderWebhookBody<'PAYMENT.DONE'> {
  const now = new Date().toISOString();
  return {
    eventId,
    eventType: 'PAYMENT.DONE',
    createdAt: now,
    data: {
      paymentKey: `pay_bench_${seq}`,
      orderId: `order_bench_${seq}`,
      status: 'DONE',
      approvedAt: now,
      totalAmount: 9_900,
      customerKey: 'customer_bench',
    },
  };
}

/**
 * Every 2xx must have left its event's row `success`. Waits first for the requests autocannon cut
 * off at the end (sent, answer never read) to finish, so no row of the run is still pending.
 */
async function verify(
  db: Pool,
  target: Target,
  prefix: string,
  answered: string[],
): Promise<Pick<Run, 'successRows' | 'cutOff' | 'otherRows'>> {
  await waitFor(
    `the ${target.name} run's rows to settle`,
    async () => {
      const { rows } = await db.query<{ pending: string }>(
        `SELECT count(*) AS pending FROM ${target.table}
          WHERE starts_with(external_event_id, $1) AND processing_result = 'pending'`,
        [prefix],
      );
      return Number(rows[0].pending) === 0;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const { rows } = await db.query<{ answered: string; success: string; other: string }>(
    `SELECT count(*) FILTER (WHERE processing_result = 'success' AND external_event_id = ANY($2)) AS answered,
            count(*) FILTER (WHERE processing_result = 'success') AS success,
            count(*) FILTER (WHERE processing_result <> 'success') AS other
       FROM ${target.table}
      WHERE starts_with(external_event_id, $1)`,
    [prefix, answered],
  );
  const successRows = Number(rows[0].answered);
  return {
    successRows,
    cutOff: Number(rows[0].success) - successRows,
    otherRows: Number(rows[0].other),
  };
}

function healthy(run: Run): boolean {
  const { result } = run;
  return (
    result.non2xx === 0 &&
    result.errors === 0 &&
    result.timeouts === 0 &&
    run.successRows === run.answered &&
    run.otherRows === 0 &&
    run.cutOff <= CONNECTIONS
  );
}

const int = (value: number) => Math.round(value).toLocaleString('en-US');

const COLUMNS =
  `  ${'run'.padEnd(10)} ${'target'.padEnd(7)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ` +
  `${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)} ${'errors'.padStart(7)}   ${'its process: CPU, CPU/request'}`;

function row(label: string, run: Run): string {
  const { result, cpuMs } = run;
  const responses = run.answered + result.non2xx;
  const cpu =
    cpuMs === undefined
      ? '-'
      : `${((cpuMs / (result.duration * 1000)) * 100).toFixed(0).padStart(3)} % of a core, ` +
        `${(cpuMs / Math.max(1, responses)).toFixed(2)} ms`;
  return (
    `  ${label.padEnd(10)} ${run.target.name.padEnd(7)} ${int(result.requests.average).padStart(7)}` +
    ` ${result.latency.p50.toFixed(1).padStart(7)} ${result.latency.p99.toFixed(1).padStart(7)}` +
    ` ${int(result.non2xx).padStart(8)} ${int(result.errors).padStart(7)}   ${cpu}`
  );
}

function best(runs: Run[], name: Target['name']): Run {
  return runs
    .filter((run) => run.target.name === name)
    .reduce((a, b) => (b.result.requests.average > a.result.requests.average ? b : a));
}

async function main(): Promise<void> {
  migrateTestDatabase();
  const prefix = `evt_bench_${Date.now().toString(36)}_`;
  const db = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  const redis = new Redis(process.env.REDIS_URL!);
  const billing = await startBillingStandIn();
  let bare: BareProcess | undefined;
  let intake: AppProcess | undefined;
  let ok = true;
  try {
    await db.query(`DROP TABLE IF EXISTS ${BARE_TABLE}`);
    // The same columns, checks, primary key and indexes (the partial unique one included), so an
    // insert into it costs what one into the intake's table does.
    await db.query(`CREATE TABLE ${BARE_TABLE} (LIKE ${INTAKE_TABLE} INCLUDING ALL)`);
    // The bare table starts empty; the intake's carries the dead rows of earlier runs (each run
    // deletes its own rows), which inserts and index updates would otherwise pay for.
    await db.query(`VACUUM ${INTAKE_TABLE}`);
    bare = await startBare(billing.url);
    // Logging as in production; INTAKE_CPU_PROFILE_DIR=<dir> (BARE_CPU_PROFILE_DIR=<dir>) leaves the
    // intake's (the bare handler's) CPU profile there.
    intake = await startApp('webhook-intake', {
      // The signed envelope's path (HMAC, event-id key), the one the bare handler mirrors. A Toss
      // delivery in lookup mode adds billing's call to the provider, which is not the intake's cost.
      PROVIDER_WEBHOOK_VERIFICATION: 'signature',
      BILLING_URL: billing.url,
      LOG_LEVEL: 'info',
      // Every request comes from this one address, at ~1,000 a second. The per-address limit stays
      // on, as deployed, so its counting is in the figures, but far above the rate: never a 429.
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000000',
      CPU_PROFILE_DIR: process.env.INTAKE_CPU_PROFILE_DIR,
    });
    const targets: Target[] = [
      { name: 'bare', url: bare.url, table: BARE_TABLE, pid: bare.pid },
      { name: 'intake', url: intake.url, table: INTAKE_TABLE, pid: intake.child.pid },
    ];

    console.log(
      `webhook intake under load: POST ${WEBHOOK_PATH} over loopback, ${CONNECTIONS} connections, pipelining 1, ` +
        `${DURATION_S} s per run after ${WARM_UP_S} s of warm-up; each request a distinct signed PAYMENT.DONE ` +
        `event; real Redis and Postgres. Billing is a stand-in answering 200 "applied" at once: its own cost ` +
        `is billing's, not the intake's. bare = node:http + ioredis + pg doing the same claim, inserts and ` +
        `routing call without Nest or our code.`,
    );
    const runs: Run[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of targets) {
        await drive(target, `${prefix}w${round}${target.name}_`, WARM_UP_S);
        const runPrefix = `${prefix}r${round}${target.name}_`;
        const cpuBefore = processCpuMs(target.pid);
        const { result, answered } = await drive(target, runPrefix, DURATION_S);
        const cpuAfter = processCpuMs(target.pid);
        const run: Run = {
          round,
          target,
          result,
          answered: answered.length,
          cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
          ...(await verify(db, target, runPrefix, answered)),
        };
        runs.push(run);
        console.log(
          `  run ${round} ${target.name.padEnd(6)}: ${int(result.requests.average)} req/s; ` +
            `2xx ${int(run.answered)}, success rows for them ${int(run.successRows)} ` +
            `(+${run.cutOff} for requests still in flight when autocannon stopped), other rows ${run.otherRows}` +
            (healthy(run) ? '' : '  <-- FAILED'),
        );
        ok &&= healthy(run);
      }
    }

    const bareBest = best(runs, 'bare');
    const intakeBest = best(runs, 'intake');
    const ratio = bareBest.result.requests.average / intakeBest.result.requests.average;
    const rateMet = intakeBest.result.requests.average >= AIM_REQUESTS_PER_S;
    const ratioMet = ratio <= AIM_COST_RATIO;
    console.log('');
    console.log(COLUMNS);
    for (const run of runs) console.log(row(`run ${run.round}`, run));
    console.log(row(`best of ${ROUNDS}`, bareBest));
    console.log(row(`best of ${ROUNDS}`, intakeBest));
    console.log('');
    console.log(
      `  cost per request: bare ${(1000 / bareBest.result.requests.average).toFixed(3)} ms, intake ` +
        `${(1000 / intakeBest.result.requests.average).toFixed(3)} ms of the machine; intake / bare = ` +
        `${ratio.toFixed(2)}x (aim <= ${AIM_COST_RATIO}x): ${ratioMet ? 'met' : 'MISSED'}`,
    );
    console.log(
      `  intake throughput: ${int(intakeBest.result.requests.average)} req/s ` +
        `(aim >= ${int(AIM_REQUESTS_PER_S)} req/s): ${rateMet ? 'met' : 'MISSED'}`,
    );
    if (!ok) console.log('  FAILED: non-2xx responses, errors, or rows that do not match the 2xx answers');
  } finally {
    await intake?.stop();
    await bare?.stop();
    await db.query(`DROP TABLE IF EXISTS ${BARE_TABLE}`);
    await deleteIntakeRows(db, prefix);
    await deleteKeys(redis, `idem:webhook:*:${prefix}*`);
    redis.disconnect();
    await db.end();
    await billing.close();
  }
  if (!ok) process.exitCode = 1;
}

/** The bench's rows go; `duplicate_of` is indexed, so the foreign-key check per row is a lookup. */
async function deleteIntakeRows(db: Pool, prefix: string): Promise<void> {
  await db.query(`DELETE FROM ${INTAKE_TABLE} WHERE starts_with(external_event_id, $1)`, [prefix]);
}

async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    if (keys.length) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

if (process.env[ROLE_ENV] === 'bare') {
  serveBare().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
