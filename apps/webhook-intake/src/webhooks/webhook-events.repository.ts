import { Injectable } from '@nestjs/common';
import { driverPool, type KeysetPosition, keysetTimeSql } from '@lib/database';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

export type ProcessingResult = 'pending' | 'success' | 'failed' | 'duplicate';

/** A `webhook.webhook_events` row (docs/behaviour.md §2.8): one request to the endpoint, or one operator reprocess. */
export interface WebhookEventRow {
  id: string;
  source: string;
  external_event_id: string | null;
  event_type: string | null;
  signature: string | null;
  signature_valid: boolean;
  payload: unknown;
  /** A signed body as received, when it is UTF-8 text Postgres can hold; `raw_body` otherwise. */
  body_text: string | null;
  raw_body: Buffer | null;
  body_bytes: number;
  /** A request refused for its signature: the SHA-256 (hex) of its body and its first 4 KiB. */
  body_sha256: string | null;
  body_excerpt: Buffer | null;
  processing_result: ProcessingResult;
  processing_error: string | null;
  routing_outcome: string | null;
  deliveries: number;
  reprocessed: number;
  duplicate_of: string | null;
  /** On an operator's reprocess: the row it was asked for. */
  reprocess_of: string | null;
  received_at: Date;
  processed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ReceivedWebhook {
  source: string;
  externalEventId: string | null;
  eventType: string | null;
  signature: string | null;
  signatureValid: boolean;
  payload: unknown;
  bodyText: string | null;
  rawBody: Buffer | null;
  bodyBytes: number;
  bodySha256: string | null;
  bodyExcerpt: Buffer | null;
  receivedAt: Date;
  reprocessOf: string | null;
}

/** Which of the rows past retention a batch deletes (duplicates go first: they reference the others). */
export type ExpiredRows = 'duplicates' | 'others' | 'superseded';

/**
 * A pending row older than this was left by a process that died while routing it (or could not
 * record billing's answer): no answer is on record, so a resend takes the event over. A request
 * gives up within about 35 s (routing 10 s, sent again once on a stale connection, and the
 * database's outage allowance on either side).
 */
const ABANDONED_AFTER_MS = 2 * 60_000;

const INSERT_COLUMNS = `(id, source, external_event_id, event_type, signature, signature_valid, payload,
   body_text, raw_body, body_bytes, body_sha256, body_excerpt, reprocess_of, processing_result, processing_error,
   duplicate_of, received_at, processed_at)`;
/** The row that carries an event now: routed, or being routed (index webhook_events_live_once). */
const LIVE_ROW = `signature_valid AND processing_result IN ('pending', 'success') AND external_event_id IS NOT NULL`;
/** The event's failed deliveries (index webhook_events_failed_idx). */
const FAILED_ROW = `signature_valid AND processing_result = 'failed' AND external_event_id IS NOT NULL`;

/**
 * Rows in a final state: processed, duplicate, or refused for their signature (recorded `failed`, but
 * never routed nor reprocessed). The retention index carries exactly this predicate (migration
 * 1765100000001). Pending rows are not final, nor is a failed delivery of an event that has not been
 * routed since (an operator may reprocess it); once the event is routed, its failed deliveries are.
 */
const FINAL_ROW = `(processing_result IN ('success', 'duplicate') OR NOT signature_valid)`;
/** A row that duplicates still point to waits for them to go first. */
const UNREFERENCED = `NOT EXISTS (SELECT 1 FROM webhook.webhook_events d WHERE d.duplicate_of = e.id)`;
const EXPIRED_ROWS: Record<ExpiredRows, string> = {
  duplicates: `${FINAL_ROW} AND processing_result = 'duplicate'`,
  others: `${FINAL_ROW} AND processing_result <> 'duplicate' AND processing_result <> 'pending' AND ${UNREFERENCED}`,
  superseded: `${FAILED_ROW} AND ${UNREFERENCED}
               AND EXISTS (SELECT 1 FROM webhook.webhook_events s
                            WHERE s.source = e.source AND s.external_event_id = e.external_event_id
                              AND s.signature_valid AND s.processing_result = 'success')`,
};

/**
 * Statements go straight to the `pg` pool under the DataSource: every delivery runs two of them on
 * the hot path, and TypeORM's query runner around each was a measurable part of a request's cost.
 */
@Injectable()
export class WebhookEventsRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = driverPool(dataSource);
  }

  /**
   * Records a request that ends here: rejected, unparseable or a duplicate. `id` is the request's
   * own, made once: recording again after a lost answer leaves the one row.
   */
  async recordFinal(
    id: string,
    webhook: ReceivedWebhook,
    result: 'failed' | 'duplicate',
    error: string | null,
    duplicateOf: string | null = null,
  ): Promise<void> {
    await this.pool.query(
      `INSERT INTO webhook.webhook_events ${INSERT_COLUMNS}
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, now())
       ON CONFLICT (id) DO NOTHING`,
      [id, ...this.values(webhook), result, error, duplicateOf, webhook.receivedAt],
    );
  }

  /**
   * Takes the event for routing: inserts this delivery's row `id` as pending, unless the event has a
   * live row (routed, or being routed by another delivery). False then, and false as well when this
   * very row is already there (an insert whose answer was lost): `findLive` tells which.
   */
  async claim(webhook: ReceivedWebhook, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO webhook.webhook_events ${INSERT_COLUMNS}
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', NULL, NULL, $14, NULL)
       ON CONFLICT DO NOTHING`,
      [id, ...this.values(webhook), webhook.receivedAt],
    );
    return rowCount === 1;
  }

  /** The row that carries the event now (routed, or being routed), if any. */
  async findLive(source: string, externalEventId: string): Promise<WebhookEventRow | null> {
    const {
      rows: [row],
    } = await this.pool.query<WebhookEventRow>(
      `SELECT * FROM webhook.webhook_events WHERE source = $1 AND external_event_id = $2 AND ${LIVE_ROW}`,
      [source, externalEventId],
    );
    return row ?? null;
  }

  /**
   * Every row of the event, oldest first: the deliveries that routed it or failed to, the operators'
   * reprocesses, and the duplicates of those.
   */
  async attempts(source: string, externalEventId: string): Promise<WebhookEventRow[]> {
    const { rows } = await this.pool.query<WebhookEventRow>(
      `WITH carriers AS (
         SELECT * FROM webhook.webhook_events WHERE source = $1 AND external_event_id = $2 AND ${LIVE_ROW}
         UNION ALL
         SELECT * FROM webhook.webhook_events WHERE source = $1 AND external_event_id = $2 AND ${FAILED_ROW})
       SELECT * FROM carriers
       UNION ALL
       SELECT * FROM webhook.webhook_events WHERE duplicate_of IN (SELECT id FROM carriers)
       ORDER BY created_at, id`,
      [source, externalEventId],
    );
    return rows;
  }

  /** A pending row no request has recorded an answer on within the abandonment time. */
  static isAbandoned(row: WebhookEventRow): boolean {
    return row.processing_result === 'pending' && Date.now() - row.updated_at.getTime() > ABANDONED_AFTER_MS;
  }

  /**
   * Closes an abandoned pending row as failed, so that the delivery taking the event over can insert
   * its own. False when the row changed meanwhile (its request answered after all, or another
   * delivery took over first).
   */
  async markAbandoned(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE webhook.webhook_events
          SET processing_result = 'failed', updated_at = now(),
              processing_error = 'abandoned: no routing answer was recorded within ' || $2 || ' s'
        WHERE id = $1 AND processing_result = 'pending' AND updated_at < now() - make_interval(secs => $2)`,
      [id, ABANDONED_AFTER_MS / 1000],
    );
    return rowCount === 1;
  }

  async markSucceeded(id: string, routingOutcome: string): Promise<void> {
    await this.pool.query(
      `UPDATE webhook.webhook_events
          SET processing_result = 'success', processing_error = NULL, routing_outcome = $2,
              processed_at = now(), updated_at = now()
        WHERE id = $1`,
      [id, routingOutcome],
    );
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.pool.query(
      `UPDATE webhook.webhook_events
          SET processing_result = 'failed', processing_error = $2, processed_at = NULL, updated_at = now()
        WHERE id = $1`,
      [id, error.slice(0, 2_000)],
    );
  }

  async get(id: string): Promise<WebhookEventRow | null> {
    const {
      rows: [row],
    } = await this.pool.query<WebhookEventRow>(`SELECT * FROM webhook.webhook_events WHERE id = $1`, [id]);
    return row ?? null;
  }

  /** Counts an operator's reprocess of the row; the reprocess itself is a row of its own. */
  async markReprocessing(id: string): Promise<void> {
    await this.pool.query(
      `UPDATE webhook.webhook_events SET reprocessed = reprocessed + 1, updated_at = now() WHERE id = $1`,
      [id],
    );
  }

  /** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
  async list(filter: {
    source?: string;
    result?: ProcessingResult;
    limit: number;
    before?: KeysetPosition;
  }): Promise<(WebhookEventRow & { cursor_at: string })[]> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.source) conditions.push(`source = $${params.push(filter.source)}`);
    if (filter.result) conditions.push(`processing_result = $${params.push(filter.result)}`);
    if (filter.before) {
      conditions.push(
        `(created_at, id) < ($${params.push(filter.before.at)}::timestamptz, $${params.push(filter.before.id)}::uuid)`,
      );
    }
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const { rows } = await this.pool.query<WebhookEventRow & { cursor_at: string }>(
      `SELECT *, ${keysetTimeSql('created_at')} AS cursor_at FROM webhook.webhook_events ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.push(filter.limit)}`,
      params,
    );
    return rows;
  }

  /**
   * Deletes up to `limit` rows of the kind that are in a final state and unchanged since `cutoff`,
   * oldest first, in one statement (its own short transaction). Rows another transaction holds are
   * skipped, not waited for: the next batch or the next run takes them. Returns how many went.
   */
  async deleteExpired(kind: ExpiredRows, cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM webhook.webhook_events WHERE ctid = ANY (ARRAY(
         SELECT e.ctid FROM webhook.webhook_events e
          WHERE e.updated_at < $1 AND ${EXPIRED_ROWS[kind]}
          ORDER BY e.updated_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED))`,
      [cutoff, limit],
    );
    return rowCount ?? 0;
  }

  private values(webhook: ReceivedWebhook): unknown[] {
    return [
      webhook.source,
      webhook.externalEventId,
      webhook.eventType,
      webhook.signature?.slice(0, 200) ?? null,
      webhook.signatureValid,
      webhook.payload === undefined ? null : JSON.stringify(webhook.payload),
      webhook.bodyText,
      webhook.rawBody,
      webhook.bodyBytes,
      webhook.bodySha256,
      webhook.bodyExcerpt,
      webhook.reprocessOf,
    ];
  }
}
