import type { DomainEvent } from '@lib/contracts';
import { encodeKeysetCursor } from '@lib/database';
import { EventProcessor, ProcessedEventsRepository } from '@lib/messaging';
import { OutboxRepository } from '@lib/outbox';
import type { Client } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { ProviderEventsRepository } from '../../apps/billing/src/provider-events/provider-events.repository';
import { SubscriptionsRepository } from '../../apps/billing/src/subscriptions/subscriptions.repository';
import { AuditLogRetentionRepository } from '../../apps/notifier/src/audit/audit-log-retention.repository';
import { AuditLogRepository } from '../../apps/notifier/src/audit/audit-log.repository';
import { NotificationsRepository } from '../../apps/notifier/src/notifications/notifications.repository';
import { ScheduledSnapshotRunsRepository } from '../../apps/recovery/src/snapshots/scheduled-snapshot-runs.repository';
import { SnapshotRetentionRepository } from '../../apps/recovery/src/snapshots/snapshot-retention.repository';
import { SnapshotsRepository } from '../../apps/recovery/src/snapshots/snapshots.repository';
import {
  type ReceivedWebhook,
  WebhookEventsRepository,
} from '../../apps/webhook-intake/src/webhooks/webhook-events.repository';
import { CONSUMERS } from './fill';

/**
 * The hot paths the growth bench times and the query-plans test explains, each through the real
 * repository (or EventProcessor) on a DataSource onto the database under test. Write paths either
 * roll back (claims: the same row is due again next time) or write fresh ids (inserts), so the
 * tables stay comparable between the empty and the filled run.
 */
export interface HotPath {
  name: string;
  /** The table the path must reach through an index (schema.table). */
  table: string;
  run(): Promise<void>;
  /** Untimed, after each run: what the caller does next with what the path claimed. */
  settle?(): Promise<void>;
}

/** The working set's guild: its snapshots and audit entries are what the listing paths page. */
export const WORKING_GUILD_ID = '01800000-0000-7000-8000-000000000001';
const WORKING_GUILDS = 500;
/** A webhook event of the working set that has a routed row (the duplicate path's event). */
const ROUTED_EVENT = 'ws_5';
const DAY_MS = 86_400_000;
/**
 * Rows a measured retention batch deletes (the jobs' batch is 1,000): fewer than the working set
 * holds of each kind, so both databases delete the same number.
 */
const RETENTION_SAMPLE = 100;
/** Rows past retention the working set holds of each table the retention sweeps delete from. */
const RETENTION_WORKING_ROWS = 200;
/** A page of the audit log retention's guild walk (audit-log-retention.ts). */
const AUDIT_GUILD_PAGE = 500;
/** The DM sender's batch (dm-sender.service.ts). */
const DM_BATCH = 20;

/**
 * The rows the measured paths are asked for, the same with or without years of history: a guild
 * with 30 snapshots and 300 audit entries over two years, 20 due DMs for each of `rounds` (the
 * sender's claims are committed: see hotPaths), 500 guilds with a due
 * scheduled run, 500 subscriptions due for renewal, 100 unsent outbox rows, 1,000 webhook requests
 * over two years with 200 duplicates and 200 failed deliveries of routed events.
 */
export async function seedWorkingSet(client: Client, rounds: number): Promise<void> {
  const now = Date.now();
  const start = now - 730 * DAY_MS;
  await client.query(`
    CREATE OR REPLACE FUNCTION pg_temp.ws_uuid(ms bigint, seed bigint) RETURNS uuid
    LANGUAGE sql IMMUTABLE AS $$
      SELECT (lpad(to_hex(ms), 12, '0') || '7' || lpad(to_hex(seed % 4096), 3, '0') || '8'
              || lpad(to_hex(seed), 15, '0'))::uuid
    $$`);
  const guild = (k: string) => `pg_temp.ws_uuid(1500000000000 + ${k}, ${k} + 20000000000)`;
  const statements = [
    `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
     VALUES ('${WORKING_GUILD_ID}', '100000000000000001', 'working guild', '100000000000000002', now())`,
    `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
     SELECT ${guild('k')}, (100000000000001000 + k)::text, 'working guild ' || k, '100000000000000002', now()
       FROM generate_series(1, ${WORKING_GUILDS}) AS k`,
    `INSERT INTO recovery.snapshots (id, guild_id, payload, payload_size, trigger, created_at)
     SELECT pg_temp.ws_uuid(${now}::bigint - d * ${DAY_MS}::bigint, d + 21000000000), '${WORKING_GUILD_ID}',
            '{"version":2,"roles":[],"channels":[],"permission_overrides":[],"bans":[]}'::jsonb, 100, 'scheduled',
            to_timestamp((${now}::bigint - d * ${DAY_MS}::bigint) / 1000.0)
       FROM generate_series(1, 30) AS d`,
    `INSERT INTO recovery.scheduled_snapshot_runs (guild_id, run_date, due_at, next_attempt_at)
     SELECT ${guild('k')}, current_date + 1, now() - k * interval '1 second', now() - k * interval '1 second'
       FROM generate_series(1, ${WORKING_GUILDS}) AS k`,
    `INSERT INTO notification.audit_log (event_id, event_type, producer, guild_id, aggregate_type, aggregate_id,
                                         occurred_at, payload)
     SELECT pg_temp.ws_uuid(ms, k + 22000000000), 'SnapshotCreated', 'recovery', '${WORKING_GUILD_ID}', 'snapshot',
            k::text, to_timestamp(ms / 1000.0), jsonb_build_object('k', k)
       FROM generate_series(1, 300) AS k, LATERAL (SELECT ${start}::bigint + k * ${Math.floor((730 * DAY_MS) / 300)}::bigint AS ms) t`,
    `INSERT INTO notification.notifications (id, event_id, event_type, template, guild_id,
         recipient_platform_user_id, content, status, next_attempt_at)
     SELECT pg_temp.ws_uuid(${now}, k + 23000000000), pg_temp.ws_uuid(${now}, k + 24000000000), 'SubscriptionRenewed',
            'renewed', '${WORKING_GUILD_ID}', '100000000000000002', 'Renewed.', 'pending',
            now() - k * interval '1 second'
       FROM generate_series(1, ${(rounds + 10) * DM_BATCH}) AS k`,
    `INSERT INTO billing.billing_keys (id, user_id, customer_key, billing_key_encrypted, billing_key_digest,
         card_company, card_number_masked, card_last4, status)
     SELECT pg_temp.ws_uuid(${now}, k + 25000000000), pg_temp.ws_uuid(${now}, k + 26000000000),
            'user_' || pg_temp.ws_uuid(${now}, k + 26000000000), decode(md5('w' || k), 'hex'),
            decode(md5('wd' || k), 'hex'), 'BC', '1234-****-****-5678', '5678', 'active'
       FROM generate_series(1, 500) AS k`,
    `INSERT INTO billing.subscriptions (id, guild_id, billing_key_id, plan_code, payer_user_id, guild_name, status,
         cycle_count, billing_anchor_at, current_period_start, current_period_end, next_billing_at)
     SELECT pg_temp.ws_uuid(${now}, k + 27000000000), ${guild('k')}, pg_temp.ws_uuid(${now}, k + 25000000000),
            'PRO', pg_temp.ws_uuid(${now}, k + 26000000000), 'working guild ' || k, 'active', 1,
            now() - interval '30 days', now() - interval '30 days', now() - k * interval '1 minute',
            now() - k * interval '1 minute'
       FROM generate_series(1, 500) AS k`,
    `INSERT INTO recovery.outbox (id, topic, message_key, event_type, envelope)
     SELECT pg_temp.ws_uuid(${now}, k + 28000000000), 'recovery.events', '${WORKING_GUILD_ID}', 'SnapshotCreated',
            jsonb_build_object('k', k)
       FROM generate_series(1, 100) AS k`,
    // 1,000 requests over two years: mostly routed, some forged, some failed deliveries, 10 pending.
    `INSERT INTO webhook.webhook_events (id, source, external_event_id, event_type, signature_valid, payload,
         body_text, body_bytes, body_sha256, processing_result, processing_error, received_at, created_at, updated_at)
     SELECT pg_temp.ws_uuid(ms, k + 29000000000), 'provider', 'ws_' || k, 'PAYMENT_STATUS_CHANGED', k % 10 <> 0,
            CASE WHEN k % 10 <> 0 THEN jsonb_build_object('k', k) END,
            CASE WHEN k % 10 <> 0 THEN '{"k":' || k || '}' END, 8,
            CASE WHEN k % 10 = 0 THEN md5(k::text) || md5(k::text) END,
            CASE WHEN k % 100 = 7 THEN 'pending' WHEN k % 10 IN (0, 3) THEN 'failed' ELSE 'success' END,
            CASE WHEN k % 10 = 0 THEN 'signature does not verify' WHEN k % 10 = 3 THEN 'billing unavailable' END,
            to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
       FROM generate_series(1, 1000) AS k, LATERAL (SELECT ${start}::bigint + k * ${Math.floor((730 * DAY_MS) / 1000)}::bigint AS ms) t`,
    // Duplicates of 200 routed events (a resend a minute later), and 200 failed deliveries of routed
    // events (a minute before the delivery that routed them): what the retention job deletes first.
    `INSERT INTO webhook.webhook_events (id, source, external_event_id, event_type, signature_valid, payload,
         body_text, body_bytes, processing_result, processing_error, duplicate_of, received_at, created_at,
         updated_at)
     SELECT pg_temp.ws_uuid(ms + 60000 * d, k + 30000000000), 'provider', 'ws_' || k, 'PAYMENT_STATUS_CHANGED',
            true, jsonb_build_object('k', k), '{"k":' || k || '}', 8,
            CASE WHEN d = 1 THEN 'duplicate' ELSE 'failed' END,
            CASE WHEN d = 1 THEN NULL ELSE 'billing unavailable' END,
            CASE WHEN d = 1 THEN pg_temp.ws_uuid(ms, k + 29000000000) END,
            to_timestamp((ms + 60000 * d) / 1000.0), to_timestamp((ms + 60000 * d) / 1000.0),
            to_timestamp((ms + 60000 * d) / 1000.0)
       FROM generate_series(1, 1000) AS k,
            LATERAL (SELECT ${start}::bigint + k * ${Math.floor((730 * DAY_MS) / 1000)}::bigint AS ms,
                            CASE WHEN k % 10 IN (1, 2) THEN 1 ELSE -1 END AS d) t
      WHERE k % 10 IN (1, 2, 4, 5)`,
    // Past their retention, for the retention sweeps' batches: applied events a month old in each
    // consuming service, final DMs two months old, the working guilds' finished runs of two months
    // ago, provider events 500 days old, sent outbox rows of last week, and one audit entry of each
    // working guild a year ago (so a page of the audit log's guild walk has 500 guilds here too).
    ...Object.keys(CONSUMERS).map(
      (schema) => `
    INSERT INTO "${schema}".processed_events (consumer, event_id, event_type, status, processed_at)
    SELECT 'bench-expired', 'ws_expired_' || k, 'SnapshotCreated', 'done', now() - interval '30 days' - k * interval '1 minute'
      FROM generate_series(1, ${RETENTION_WORKING_ROWS}) AS k`,
    ),
    `INSERT INTO notification.notifications (id, event_id, event_type, template, guild_id,
         recipient_platform_user_id, content, status, created_at, updated_at)
     SELECT pg_temp.ws_uuid(${now - 60 * DAY_MS}, k + 31000000000), pg_temp.ws_uuid(${now - 60 * DAY_MS}, k + 32000000000),
            'SubscriptionRenewed', 'renewed', '${WORKING_GUILD_ID}', '100000000000000002', 'Renewed.', 'sent',
            now() - interval '60 days' - k * interval '1 minute', now() - interval '60 days' - k * interval '1 minute'
       FROM generate_series(1, ${RETENTION_WORKING_ROWS}) AS k`,
    `INSERT INTO recovery.scheduled_snapshot_runs (guild_id, run_date, due_at, next_attempt_at, status, attempts, updated_at)
     SELECT ${guild('k')}, current_date - 60, now() - interval '60 days', now() - interval '60 days', 'done', 1,
            now() - interval '60 days'
       FROM generate_series(1, ${WORKING_GUILDS}) AS k`,
    `INSERT INTO billing.provider_events (event_id, event_type, outcome, detail, applied_at)
     SELECT 'ws_provider_' || k, 'PAYMENT_STATUS_CHANGED', 'applied', 'working set',
            now() - interval '500 days' - k * interval '1 minute'
       FROM generate_series(1, ${RETENTION_WORKING_ROWS}) AS k`,
    `INSERT INTO recovery.outbox (id, topic, message_key, event_type, envelope, created_at, sent_at)
     SELECT pg_temp.ws_uuid(${now - 7 * DAY_MS}, k + 33000000000), 'recovery.events', '${WORKING_GUILD_ID}',
            'SnapshotCreated', jsonb_build_object('k', k), now() - interval '7 days', now() - interval '7 days'
       FROM generate_series(1, ${RETENTION_WORKING_ROWS}) AS k`,
    `INSERT INTO notification.audit_log (event_id, event_type, producer, guild_id, aggregate_type, aggregate_id,
                                         occurred_at, payload)
     SELECT pg_temp.ws_uuid(${now - 365 * DAY_MS}, k + 34000000000), 'SnapshotCreated', 'recovery', ${guild('k')}::text,
            'snapshot', k::text, now() - interval '365 days', jsonb_build_object('k', k)
       FROM generate_series(1, ${WORKING_GUILDS}) AS k`,
  ];
  for (const sql of statements) {
    await client.query(sql).catch((error: Error) => {
      throw new Error(`${error.message} in ${sql.slice(0, 120)}`);
    });
  }
}

/** A DataSource stand-in whose `query` runs on the runner's open transaction (rolled back after). */
function onRunner(runner: QueryRunner): DataSource {
  return { query: (sql: string, params?: unknown[]) => runner.query(sql, params) } as unknown as DataSource;
}

function received(externalEventId: string): ReceivedWebhook {
  const body = `{"eventId":"${externalEventId}","status":"DONE"}`;
  return {
    source: 'provider',
    externalEventId,
    eventType: 'PAYMENT_STATUS_CHANGED',
    signature: 't=1,v1=abc',
    signatureValid: true,
    payload: JSON.parse(body) as unknown,
    bodyText: body,
    rawBody: null,
    bodyBytes: body.length,
    bodySha256: null,
    bodyExcerpt: null,
    receivedAt: new Date(),
    reprocessOf: null,
  };
}

function event(): DomainEvent {
  const id = uuidv7();
  return {
    id,
    type: 'SnapshotCreated',
    version: 1,
    occurred_at: new Date().toISOString(),
    producer: 'recovery',
    aggregate_type: 'snapshot',
    aggregate_id: id,
    guild_id: WORKING_GUILD_ID,
    correlation_id: null,
    payload: {},
  } as unknown as DomainEvent;
}

/** The hot paths on `dataSource`; `close` releases the query runner the rolled-back paths use. */
export async function hotPaths(
  dataSource: DataSource,
): Promise<{ paths: HotPath[]; close(): Promise<void> }> {
  const runner = dataSource.createQueryRunner();
  // The runner's own connection: a repository on the pg pool runs on it, in the runner's transaction.
  const connection = (await runner.connect()) as unknown;
  /** Runs `work` in a transaction on the runner and rolls it back. */
  const rolledBack = async (work: () => Promise<unknown>) => {
    await runner.startTransaction();
    try {
      await work();
    } finally {
      await runner.rollbackTransaction();
    }
  };
  const webhooks = new WebhookEventsRepository(dataSource);
  const audit = new AuditLogRepository(dataSource);
  const snapshots = new SnapshotsRepository(dataSource);
  const outbox = new OutboxRepository('recovery');
  const subscriptions = new SubscriptionsRepository(dataSource);
  const dms = new NotificationsRepository(dataSource);
  let claimedDms: string[] = [];
  const runs = new ScheduledSnapshotRunsRepository(onRunner(runner));
  const webhookRetention = new WebhookEventsRepository({
    driver: { master: connection },
  } as unknown as DataSource);
  const snapshotRetention = new SnapshotRetentionRepository(onRunner(runner));
  const yearAgo = new Date(Date.now() - 365 * DAY_MS).toISOString();
  const deepCursor = encodeKeysetCursor({ at: yearAgo, id: 'ffffffff-ffff-7fff-bfff-ffffffffffff' });
  const deepPosition = { at: yearAgo, id: 'ffffffff-ffff-7fff-bfff-ffffffffffff' };

  const paths: HotPath[] = [];
  for (const [schema, consumers] of Object.entries(CONSUMERS)) {
    // As the Kafka consumer hands a batch to EventProcessor: claim and (no-op) apply, one transaction.
    const processor = new EventProcessor(dataSource, schema, [
      { consumer: consumers[0], eventTypes: 'all', handle: () => Promise.resolve() },
    ]);
    paths.push({
      name: `consume an event (${schema})`,
      table: `${schema}.processed_events`,
      run: () => processor.process([event()]),
    });
  }
  paths.push(
    {
      name: 'claim outbox rows (relay, 500)',
      table: 'recovery.outbox',
      run: () => rolledBack(() => outbox.claimUnsent(runner, 500)),
    },
    {
      name: 'take a webhook (new event)',
      table: 'webhook.webhook_events',
      run: async () => {
        if (!(await webhooks.claim(received(`bench_${uuidv7()}`), uuidv7()))) throw new Error('not claimed');
      },
    },
    {
      name: 'take a webhook (resend: claim + findLive)',
      table: 'webhook.webhook_events',
      run: async () => {
        if (await webhooks.claim(received(ROUTED_EVENT), uuidv7())) throw new Error('claimed a routed event');
        if (!(await webhooks.findLive('provider', ROUTED_EVENT))) throw new Error('no live row');
      },
    },
    {
      name: 'audit log, first page',
      table: 'notification.audit_log',
      run: () => audit.list({ guildId: WORKING_GUILD_ID, limit: 50 }).then(expectRows),
    },
    {
      name: 'audit log, page a year back',
      table: 'notification.audit_log',
      run: () => audit.list({ guildId: WORKING_GUILD_ID, limit: 50, cursor: deepCursor }).then(expectRows),
    },
    {
      name: 'operator: webhook events, newest',
      table: 'webhook.webhook_events',
      run: () => webhooks.list({ limit: 51 }).then(expectRows),
    },
    {
      name: 'operator: webhook events, failed',
      table: 'webhook.webhook_events',
      run: () => webhooks.list({ result: 'failed', limit: 51 }).then(expectRows),
    },
    {
      name: 'operator: webhook events, pending',
      table: 'webhook.webhook_events',
      run: () => webhooks.list({ result: 'pending', limit: 51 }).then(expectRows),
    },
    {
      name: 'operator: provider + failed, a year back',
      table: 'webhook.webhook_events',
      run: () =>
        webhooks
          .list({ source: 'provider', result: 'failed', limit: 51, before: deepPosition })
          .then(expectRows),
    },
    {
      name: 'operator: webhook events, a year back',
      table: 'webhook.webhook_events',
      run: () => webhooks.list({ limit: 51, before: deepPosition }).then(expectRows),
    },
    {
      name: "operator: one event's attempts",
      table: 'webhook.webhook_events',
      run: () => webhooks.attempts('provider', ROUTED_EVENT).then(expectRows),
    },
    {
      name: 'snapshots of a guild (page)',
      table: 'recovery.snapshots',
      run: () =>
        snapshots.page(WORKING_GUILD_ID, { after: { at: null, id: null }, limit: 51 }).then(expectRows),
    },
    {
      name: 'renewal job: claim a due subscription',
      table: 'billing.subscriptions',
      run: () =>
        rolledBack(async () => {
          if (!(await subscriptions.claimDueRenewal(runner.manager, new Date()))) throw new Error('none due');
        }),
    },
    {
      // Committed, and the claimed DMs then marked sent (untimed), as the sender does: a rolled-back
      // claim leaves dead versions of the same rows in the due index, which the next claim must step
      // over, and that is not what a sender sees.
      name: `DM sender: claim due DMs (${DM_BATCH})`,
      table: 'notification.notifications',
      run: async () => {
        const rows = await dms.claimDue(DM_BATCH);
        expectRows(rows);
        claimedDms = rows.map((row) => row.id);
      },
      settle: async () => {
        for (const id of claimedDms.splice(0)) await dms.markSent(id, 'bench');
      },
    },
    {
      name: 'scheduled snapshots: claim a due run',
      table: 'recovery.scheduled_snapshot_runs',
      run: () =>
        rolledBack(async () => {
          if (!(await runs.claimDue(300))) throw new Error('none due');
        }),
    },
  );
  // Retention: one batch of each job's delete, rolled back (the same rows are expired next time).
  const monthAgo = () => new Date(Date.now() - 30 * DAY_MS);
  for (const kind of ['duplicates', 'superseded', 'others'] as const) {
    paths.push({
      name: `webhook retention: a batch of ${kind} (100)`,
      table: 'webhook.webhook_events',
      run: () => rolledBack(() => webhookRetention.deleteExpired(kind, monthAgo(), RETENTION_SAMPLE)),
    });
  }
  paths.push({
    name: "snapshot retention: a guild's expired (100)",
    table: 'recovery.snapshots',
    run: () =>
      rolledBack(async () => {
        const deleted = await snapshotRetention.deleteScheduledOlderThan(
          WORKING_GUILD_ID,
          new Date(Date.now() - 7 * DAY_MS),
          RETENTION_SAMPLE,
        );
        if (deleted === 0) throw new Error('nothing expired: the working set is missing');
      }),
  });
  // The retention sweeps' statements (libs/runtime/src/retention-sweep.ts and each app's
  // <app>-retention.ts), at their settings' defaults, one batch each, rolled back.
  const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);
  const expectSample = (deleted: number) => {
    if (deleted !== RETENTION_SAMPLE) throw new Error(`deleted ${deleted}: the working set is missing`);
  };
  const processed = new ProcessedEventsRepository('recovery');
  const dmRecords = new NotificationsRepository(onRunner(runner));
  const providerEvents = new ProviderEventsRepository();
  const auditRetention = new AuditLogRetentionRepository(onRunner(runner));
  paths.push(
    {
      name: 'processed events retention: a batch (100)',
      table: 'recovery.processed_events',
      run: () =>
        rolledBack(async () =>
          expectSample(await processed.deleteDoneBefore(onRunner(runner), daysAgo(14), RETENTION_SAMPLE)),
        ),
    },
    {
      name: 'outbox retention: a batch of sent rows (100)',
      table: 'recovery.outbox',
      run: () =>
        rolledBack(async () =>
          expectSample(await outbox.deleteSentBefore(onRunner(runner), 72, RETENTION_SAMPLE)),
        ),
    },
    {
      name: 'DM retention: a batch of final DMs (100)',
      table: 'notification.notifications',
      run: () =>
        rolledBack(async () =>
          expectSample(await dmRecords.deleteFinalBefore(daysAgo(30), RETENTION_SAMPLE)),
        ),
    },
    {
      name: 'scheduled runs retention: a batch (100)',
      table: 'recovery.scheduled_snapshot_runs',
      run: () =>
        rolledBack(async () => expectSample(await runs.deleteFinishedBefore(daysAgo(30), RETENTION_SAMPLE))),
    },
    {
      name: 'provider events retention: a batch (100)',
      table: 'billing.provider_events',
      run: () =>
        rolledBack(async () =>
          expectSample(
            await providerEvents.deleteAppliedBefore(onRunner(runner), daysAgo(400), RETENTION_SAMPLE),
          ),
        ),
    },
    {
      name: `audit log retention: a page of guilds (${AUDIT_GUILD_PAGE})`,
      table: 'notification.audit_log',
      run: async () => {
        const page = await auditRetention.guildsAfter('', AUDIT_GUILD_PAGE);
        if (page.length !== AUDIT_GUILD_PAGE)
          throw new Error(`a page of ${page.length}: the working set is missing`);
      },
    },
    {
      name: "audit log retention: a guild's expired (100)",
      table: 'notification.audit_log',
      run: () =>
        rolledBack(async () =>
          expectSample(await auditRetention.deleteOlderThan(WORKING_GUILD_ID, daysAgo(30), RETENTION_SAMPLE)),
        ),
    },
  );
  return { paths, close: () => runner.release() };
}

function expectRows(rows: unknown[]): void {
  if (rows.length === 0) throw new Error('the path found no rows: the working set is missing');
}
