import type { Client } from 'pg';

/**
 * Fills the tables that grow with an installation's age to `scale` times a few years of a large
 * installation, generated in Postgres itself (`INSERT ... SELECT ... generate_series`), so scale 1
 * takes minutes. At scale 1:
 *
 * - `processed_events`: 10,000,000 rows in each consuming service (recovery, licensing,
 *   notification; split between the service's consumers), event ids time-ordered UUIDv7 as
 *   OutboxWriter makes them, processed over two years, one in 100,000 `failed`;
 * - `outbox`: 1,000,000 sent rows in each producing service (recovery, billing, licensing), as if
 *   the sent-row cleanup lagged far behind;
 * - `webhook.webhook_events`: 5,000,000 requests: routed (`success`), forged (refused, `failed`,
 *   digest and excerpt only), failed deliveries superseded by the next one, duplicates pointing at
 *   the row they duplicate, and a few `pending`;
 * - `notification.audit_log`: 2,000,000 entries across the guilds, one in 50 in one busy guild;
 * - `recovery.guilds`: 100,000, each with 30 snapshots (3,000,000 rows; the payload is a small
 *   valid document of ~200 bytes, not a full guild: the listing reads metadata only, and 3 million
 *   full payloads would be terabytes), 30 days of `scheduled_snapshot_runs` each (done, today's
 *   pending), and a finished restore job for one guild in 20;
 * - `notification.notifications`: 1,000,000 DMs, sent or given up;
 * - `billing`: 20,000 subscriptions (active, past due, canceled) with a billing key each and 24
 *   settled payment attempts each.
 *
 * Rows are generated oldest first, so every time-ordered index is filled at its right edge, as
 * the service fills it. History ends an hour before `now`; the rows the measured paths are asked
 * for are the working set (`seedWorkingSet`), the same with or without the history.
 */
export interface FillStep {
  name: string;
  rows: number;
  ms: number;
}

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 730;

export const GROWTH_SIZES = {
  processedEventsPerService: 10_000_000,
  outboxSentPerService: 1_000_000,
  webhookEvents: 5_000_000,
  auditEntries: 2_000_000,
  guilds: 100_000,
  snapshotsPerGuild: 30,
  notifications: 1_000_000,
  subscriptions: 20_000,
  paymentAttemptsPerSubscription: 24,
  providerEvents: 1_000_000,
} as const;

/** Consuming services and their consumers (the handlers' `consumer` names). */
export const CONSUMERS: Record<string, string[]> = {
  recovery: ['antinuke'],
  licensing: ['license'],
  notification: ['audit', 'notifications'],
};
const PRODUCERS = ['recovery', 'billing', 'licensing'];

/** The guild the audit log's busiest history belongs to (its platform id is the fill's first). */
export const BUSY_GUILD_INDEX = 0;

/**
 * A UUIDv7 as OutboxWriter's `uuidv7()` makes it: 48 bits of milliseconds, then (here) the seed
 * instead of random bits, so ids are unique per seed, time ordered and reproducible.
 */
const UUID_FUNCTION = `
  CREATE OR REPLACE FUNCTION pg_temp.growth_uuid(ms bigint, seed bigint) RETURNS uuid
  LANGUAGE sql IMMUTABLE AS $$
    SELECT (lpad(to_hex(ms), 12, '0') || '7' || lpad(to_hex(seed % 4096), 3, '0') || '8'
            || lpad(to_hex(seed), 15, '0'))::uuid
  $$`;

/** The id of the fill's guild `i` (created at the start of the history, in index order). */
export function guildIdSql(i: string): string {
  return `pg_temp.growth_uuid(${i} + 1000000000000, ${i} + 7000000000)`;
}

/** Rows `n` of a generated set, `ms` spread over the history (oldest first). */
function series(n: number, startMs: number, endMs: number): string {
  return `(SELECT i, (${startMs}::bigint + (i::numeric * ${endMs - startMs} / ${Math.max(1, n)})::bigint) AS ms
             FROM generate_series(1, ${n}) AS i) g`;
}

export async function fillGrowth(
  client: Client,
  scale: number,
  log: (line: string) => void = () => undefined,
): Promise<FillStep[]> {
  const steps: FillStep[] = [];
  const now = Date.now();
  const end = now - 3_600_000;
  const start = end - HISTORY_DAYS * DAY_MS;
  const n = (count: number) => Math.max(1, Math.round(count * scale));
  await client.query(`SET synchronous_commit = off`);
  await client.query(`SET maintenance_work_mem = '256MB'`);
  await client.query(UUID_FUNCTION);

  const step = async (name: string, sql: string | string[]) => {
    const t = performance.now();
    let rows = 0;
    for (const statement of Array.isArray(sql) ? sql : [sql])
      rows += (await client.query(statement)).rowCount ?? 0;
    const ms = performance.now() - t;
    steps.push({ name, rows, ms });
    log(`  fill ${name}: ${rows.toLocaleString('en')} rows in ${(ms / 1000).toFixed(1)} s`);
  };

  const guilds = n(GROWTH_SIZES.guilds);
  const guildId = (expr: string) => guildIdSql(`(${expr})`);

  // processed_events: each consumer's share, ids and times in one time order.
  for (const [schema, consumers] of Object.entries(CONSUMERS)) {
    const each = n(GROWTH_SIZES.processedEventsPerService / consumers.length);
    await step(
      `${schema}.processed_events`,
      consumers.map(
        (consumer, c) => `
        INSERT INTO "${schema}".processed_events (consumer, event_id, event_type, status, error, processed_at)
        SELECT '${consumer}', pg_temp.growth_uuid(ms, i * 8 + ${c})::text,
               (ARRAY['SnapshotCreated', 'RestoreCompleted', 'SubscriptionRenewed', 'LicenseChanged'])[1 + i % 4],
               CASE WHEN i % 100000 = 0 THEN 'failed' ELSE 'done' END,
               CASE WHEN i % 100000 = 0 THEN 'unknown plan' END,
               to_timestamp(ms / 1000.0)
          FROM ${series(each, start, end)}`,
      ),
    );
  }

  // Sent outbox rows of each producer.
  for (const [p, producer] of PRODUCERS.entries()) {
    const count = n(GROWTH_SIZES.outboxSentPerService);
    await step(
      `${producer}.outbox (sent)`,
      `
      INSERT INTO "${producer}".outbox (id, topic, message_key, event_type, envelope, created_at, sent_at)
      SELECT pg_temp.growth_uuid(ms, i * 4 + ${p}), '${producer}.events', ${guildId(`i % ${guilds}`)}::text,
             'SnapshotCreated',
             jsonb_build_object('id', pg_temp.growth_uuid(ms, i * 4 + ${p}), 'type', 'SnapshotCreated',
                                'version', 1, 'producer', '${producer}',
                                'guild_id', ${guildId(`i % ${guilds}`)}, 'payload', jsonb_build_object('n', i)),
             to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0) + interval '40 milliseconds'
        FROM ${series(count, start, end)}`,
    );
  }

  // Guilds, their snapshots, scheduled runs and restore jobs.
  await step(
    'recovery.guilds',
    `
    INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at,
                                 removed_at, created_at, updated_at)
    SELECT ${guildId('i')}, (200000000000000000 + i)::text, 'guild ' || i, (300000000000000000 + i)::text,
           to_timestamp(${start} / 1000.0), CASE WHEN i % 50 = 49 THEN to_timestamp(${end} / 1000.0) END,
           to_timestamp(${start} / 1000.0), to_timestamp(${start} / 1000.0)
      FROM generate_series(0, ${guilds - 1}) AS i`,
  );
  const perGuild = GROWTH_SIZES.snapshotsPerGuild;
  // One snapshot a day for the last 30 days, day by day (as the daily job writes them).
  await step(
    'recovery.snapshots',
    `
    INSERT INTO recovery.snapshots (id, guild_id, payload, payload_size, trigger, created_by_user,
                                    description, created_at)
    SELECT pg_temp.growth_uuid(ms, d * 1000000 + g), ${guildId('g')},
           '{"version":2,"guild":{"name":"g"},"roles":[{"id":"1","name":"@everyone"}],"channels":[],"permission_overrides":[],"bans":[],"omitted":[]}'::jsonb,
           200, CASE WHEN g % 10 = 0 AND d % 7 = 0 THEN 'manual' ELSE 'scheduled' END,
           CASE WHEN g % 10 = 0 AND d % 7 = 0 THEN ${guildId('g')} END,
           CASE WHEN g % 10 = 0 AND d % 7 = 0 THEN 'before the event' END,
           to_timestamp(ms / 1000.0)
      FROM generate_series(0, ${perGuild - 1}) AS d, generate_series(0, ${guilds - 1}) AS g,
           LATERAL (SELECT (${end}::bigint - (${perGuild} - d) * ${DAY_MS}::bigint + g * 300) AS ms) t
     ORDER BY d, g`,
  );
  // A run per guild per day: the 30 days of snapshots done, today's pending (due over the day).
  await step(
    'recovery.scheduled_snapshot_runs',
    `
    INSERT INTO recovery.scheduled_snapshot_runs (guild_id, run_date, due_at, status, attempts,
                                                  next_attempt_at, updated_at)
    SELECT ${guildId('g')}, (to_timestamp(ms / 1000.0) AT TIME ZONE 'UTC')::date, to_timestamp(ms / 1000.0),
           CASE WHEN d = ${perGuild} THEN 'pending' WHEN g % 97 = 0 THEN 'skipped' ELSE 'done' END,
           CASE WHEN d = ${perGuild} THEN 0 ELSE 1 END,
           CASE WHEN d = ${perGuild} THEN to_timestamp(${now} / 1000.0) + (g % 86400) * interval '1 second'
                ELSE to_timestamp(ms / 1000.0) END,
           to_timestamp(ms / 1000.0)
      FROM generate_series(0, ${perGuild}) AS d, generate_series(0, ${guilds - 1}) AS g,
           LATERAL (SELECT (${end}::bigint - (${perGuild} - d) * ${DAY_MS}::bigint + g * 300) AS ms) t
     ORDER BY d, g`,
  );
  await step(
    'recovery.restore_jobs',
    `
    INSERT INTO recovery.restore_jobs (id, guild_id, snapshot_id, requested_by_user, scope, status,
                                       preview_diff, created_at, started_at, completed_at)
    SELECT pg_temp.growth_uuid(${start} + g * 1000, g + 5000000000), ${guildId('g')},
           pg_temp.growth_uuid(${end} - ${perGuild * DAY_MS} + g * 300, g),
           ${guildId('g')}, ARRAY['roles', 'channels'], CASE WHEN g % 3 = 0 THEN 'failed' ELSE 'completed' END,
           '{}'::jsonb, to_timestamp((${start} + g * 1000) / 1000.0), to_timestamp((${start} + g * 1000) / 1000.0),
           to_timestamp((${start} + g * 1000 + 60000) / 1000.0)
      FROM generate_series(0, ${guilds - 1}, 20) AS g`,
  );

  // Webhook requests: routed, forged, failed then routed, and duplicates of routed ones.
  const webhooks = n(GROWTH_SIZES.webhookEvents);
  const mainRows = Math.round(webhooks * 0.97);
  await step('webhook.webhook_events', [
    `
    INSERT INTO webhook.webhook_events (id, source, external_event_id, event_type, signature, signature_valid,
        payload, body_text, body_bytes, body_sha256, body_excerpt, processing_result, processing_error,
        routing_outcome, received_at, processed_at, created_at, updated_at)
    SELECT pg_temp.growth_uuid(ms, i), 'provider',
           'evt_' || CASE WHEN i % 100 = 2 THEN i + 1 ELSE i END, 'PAYMENT_STATUS_CHANGED',
           't=' || (ms / 1000) || ',v1=' || md5(i::text), i % 100 NOT IN (0, 1),
           CASE WHEN i % 100 NOT IN (0, 1) THEN jsonb_build_object('eventId', 'evt_' || i, 'status', 'DONE') END,
           CASE WHEN i % 100 NOT IN (0, 1) THEN '{"eventId":"evt_' || i || '","status":"DONE"}' END,
           40,
           CASE WHEN i % 100 IN (0, 1) THEN md5(i::text) || md5((i + 1)::text) END,
           CASE WHEN i % 100 IN (0, 1) THEN convert_to('{"forged":' || i || '}', 'UTF8') END,
           CASE WHEN i > ${mainRows - 5} THEN 'pending' WHEN i % 100 IN (0, 1, 2) THEN 'failed' ELSE 'success' END,
           CASE WHEN i > ${mainRows - 5} THEN NULL WHEN i % 100 IN (0, 1) THEN 'signature does not verify'
                WHEN i % 100 = 2 THEN 'billing unavailable' END,
           CASE WHEN i > ${mainRows - 5} OR i % 100 IN (0, 1, 2) THEN NULL ELSE 'applied' END,
           to_timestamp(ms / 1000.0),
           CASE WHEN i > ${mainRows - 5} OR i % 100 IN (0, 1, 2) THEN NULL ELSE to_timestamp(ms / 1000.0) END,
           to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
      FROM ${series(mainRows, start, end - 60_000)}`,
    // Duplicates: a resend of every 33rd routed event, a minute later.
    `
    INSERT INTO webhook.webhook_events (id, source, external_event_id, event_type, signature, signature_valid,
        payload, body_text, body_bytes, processing_result, duplicate_of, received_at, processed_at,
        created_at, updated_at)
    SELECT pg_temp.growth_uuid(ms + 60000, i + 4000000000), 'provider', 'evt_' || i, 'PAYMENT_STATUS_CHANGED',
           't=' || (ms / 1000) || ',v1=' || md5(i::text), true,
           jsonb_build_object('eventId', 'evt_' || i, 'status', 'DONE'),
           '{"eventId":"evt_' || i || '","status":"DONE"}', 40, 'duplicate', pg_temp.growth_uuid(ms, i),
           to_timestamp((ms + 60000) / 1000.0), to_timestamp((ms + 60000) / 1000.0),
           to_timestamp((ms + 60000) / 1000.0), to_timestamp((ms + 60000) / 1000.0)
      FROM ${series(mainRows, start, end - 60_000)}
     WHERE i % 33 = 5 AND i % 100 NOT IN (0, 1, 2) AND i <= ${mainRows - 5}`,
  ]);

  // The audit log: every event of every producer, one in 50 in the busiest guild.
  await step(
    'notification.audit_log',
    `
    INSERT INTO notification.audit_log (event_id, event_type, producer, guild_id, aggregate_type, aggregate_id,
                                        occurred_at, correlation_id, payload, recorded_at)
    SELECT pg_temp.growth_uuid(ms, i + 6000000000),
           (ARRAY['SnapshotCreated', 'RestoreCompleted', 'SubscriptionRenewed', 'LicenseChanged'])[1 + i % 4],
           (ARRAY['recovery', 'recovery', 'billing', 'licensing'])[1 + i % 4],
           ${guildId(`CASE WHEN i % 50 = 0 THEN ${BUSY_GUILD_INDEX} ELSE (i::bigint * 7919) % ${guilds} END`)}::text,
           'guild', ${guildId(`(i::bigint * 7919) % ${guilds}`)}::text, to_timestamp(ms / 1000.0), md5(i::text),
           jsonb_build_object('n', i, 'note', 'growth fill'), to_timestamp(ms / 1000.0)
      FROM ${series(n(GROWTH_SIZES.auditEntries), start, end)}`,
  );

  // DMs owed over the years: nearly all sent, some turned off or undeliverable, a few failed.
  await step(
    'notification.notifications',
    `
    INSERT INTO notification.notifications (id, event_id, event_type, template, guild_id,
        recipient_platform_user_id, content, status, attempts, next_attempt_at, last_error,
        platform_message_id, sent_at, created_at, updated_at)
    SELECT pg_temp.growth_uuid(ms, i + 8000000000), pg_temp.growth_uuid(ms, i + 9000000000),
           'SubscriptionRenewed', 'renewed', ${guildId(`i % ${guilds}`)}::text, (300000000000000000 + i % ${guilds})::text,
           'Your subscription was renewed.',
           (ARRAY['sent', 'sent', 'sent', 'sent', 'sent', 'sent', 'sent', 'suppressed', 'undeliverable', 'failed'])[1 + i % 10],
           1, to_timestamp(ms / 1000.0), CASE WHEN i % 10 IN (8, 9) THEN 'dms closed' END,
           CASE WHEN i % 10 < 7 THEN (400000000000000000 + i)::text END,
           CASE WHEN i % 10 < 7 THEN to_timestamp(ms / 1000.0) END,
           to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
      FROM ${series(n(GROWTH_SIZES.notifications), start, end)}`,
  );

  // Billing: keys, subscriptions (half active, a quarter past due, a quarter canceled), attempts.
  const subscriptions = n(GROWTH_SIZES.subscriptions);
  await step('billing.subscriptions', [
    `
    INSERT INTO billing.billing_keys (id, user_id, customer_key, billing_key_encrypted, billing_key_digest,
        card_company, card_number_masked, card_last4, status, created_at, updated_at)
    SELECT pg_temp.growth_uuid(${start} + s, s + 10000000000), pg_temp.growth_uuid(${start} + s, s + 11000000000),
           'user_' || pg_temp.growth_uuid(${start} + s, s + 11000000000), decode(md5(s::text), 'hex'),
           decode(md5('d' || s), 'hex'), 'BC', '1234-****-****-5678', '5678', 'active',
           to_timestamp(${start} / 1000.0), to_timestamp(${start} / 1000.0)
      FROM generate_series(1, ${subscriptions}) AS s`,
    // Guilds of the fill, each with at most one live subscription; due dates over the next month.
    `
    INSERT INTO billing.subscriptions (id, guild_id, license_id, billing_key_id, plan_code, payer_user_id,
        guild_name, status, cycle_count, billing_anchor_at, current_period_start, current_period_end,
        next_billing_at, canceled_at, cancel_reason, created_at, updated_at)
    SELECT pg_temp.growth_uuid(${start} + s, s + 12000000000), ${guildId(`s % ${guilds}`)},
           pg_temp.growth_uuid(${start} + s, s + 13000000000), pg_temp.growth_uuid(${start} + s, s + 10000000000),
           CASE WHEN s % 5 = 0 THEN 'ENTERPRISE' ELSE 'PRO' END, pg_temp.growth_uuid(${start} + s, s + 11000000000),
           'guild ' || s, st, 24, to_timestamp(${start} / 1000.0),
           to_timestamp(${now} / 1000.0) - interval '30 days' + (s % 30) * interval '1 day' + interval '1 hour',
           to_timestamp(${now} / 1000.0) + (s % 30) * interval '1 day' + interval '1 hour',
           CASE WHEN st = 'canceled' THEN NULL
                ELSE to_timestamp(${now} / 1000.0) + (s % 30) * interval '1 day' + interval '1 hour' END,
           CASE WHEN st = 'canceled' THEN to_timestamp(${end} / 1000.0) END,
           CASE WHEN st = 'canceled' THEN 'payment_failed' END,
           to_timestamp(${start} / 1000.0), to_timestamp(${start} / 1000.0)
      FROM generate_series(1, ${subscriptions}) AS s,
           LATERAL (SELECT CASE s % 4 WHEN 0 THEN 'canceled' WHEN 1 THEN 'past_due' ELSE 'active' END AS st) x
     WHERE s <= ${guilds} OR s % 4 = 0`,
    `
    INSERT INTO billing.payment_attempts (id, subscription_id, cycle, retry_number, order_id, order_name,
        plan_code, amount_krw, status, provider_payment_key, provider_approved_at, created_at, updated_at)
    SELECT pg_temp.growth_uuid(${start} + c * 1000, s * 100 + c + 14000000000),
           pg_temp.growth_uuid(${start} + s, s + 12000000000), c, 0, 'order_' || s || '_' || c, 'guild ' || s,
           'PRO', 9900, 'succeeded', 'pay_' || s || '_' || c, to_timestamp(${start} / 1000.0) + c * interval '30 days',
           to_timestamp(${start} / 1000.0) + c * interval '30 days', to_timestamp(${start} / 1000.0) + c * interval '30 days'
      FROM generate_series(1, ${GROWTH_SIZES.paymentAttemptsPerSubscription}) AS c,
           generate_series(1, ${subscriptions}) AS s
     WHERE s <= ${guilds} OR s % 4 = 0
     ORDER BY c, s`,
  ]);

  // Provider events billing applied: a few per subscription and month, over the history.
  await step(
    'billing.provider_events',
    `
    INSERT INTO billing.provider_events (event_id, event_type, outcome, detail, applied_at)
    SELECT 'evt_' || i, 'PAYMENT_STATUS_CHANGED', CASE WHEN i % 20 = 0 THEN 'already_applied' ELSE 'applied' END,
           'payment ' || i || ' DONE', to_timestamp(ms / 1000.0)
      FROM ${series(n(GROWTH_SIZES.providerEvents), start, end)}`,
  );

  const t = performance.now();
  await client.query(`VACUUM ANALYZE`);
  // The fill's dirty pages written out now, not by a checkpoint spread over the measurements.
  await client.query(`CHECKPOINT`);
  const vacuumMs = performance.now() - t;
  steps.push({ name: 'VACUUM ANALYZE, CHECKPOINT', rows: 0, ms: vacuumMs });
  log(`  VACUUM ANALYZE, CHECKPOINT in ${(vacuumMs / 1000).toFixed(1)} s`);
  return steps;
}
