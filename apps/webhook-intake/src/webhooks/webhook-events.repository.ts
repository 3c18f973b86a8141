import { Injectable } from '@nestjs/common';
import { driverPool, type KeysetPosition, keysetTimeSql } from '@lib/database';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

export type ProcessingResult = 'pending' | 'success' | 'failed' | 'duplicate';

/** A `webhook.webhook_events` row (spec §2.8). */
export interface WebhookEventRow {
  id: string;
  source: string;
  external_event_id: string | null;
  event_type: string | null;
  signature: string | null;
  signature_valid: boolean;
  payload: unknown;
  raw_body: Buffer | null;
  body_bytes: number;
  processing_result: ProcessingResult;
  processing_error: string | null;
  routing_outcome: string | null;
  deliveries: number;
  reprocessed: number;
  duplicate_of: string | null;
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
  rawBody: Buffer | null;
  bodyBytes: number;
  receivedAt: Date;
}

/**
 * A pending row older than this was left by a process that died while routing it; a resend takes
 * it over. Routing itself gives up after 10 s.
 */
const ABANDONED_AFTER_MS = 2 * 60_000;

const INSERT_COLUMNS = `(id, source, external_event_id, event_type, signature, signature_valid, payload, raw_body,
   body_bytes, processing_result, processing_error, duplicate_of, received_at, processed_at)`;

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

  /** Records a request that ends here: rejected, unparseable or a duplicate. */
  async recordFinal(
    webhook: ReceivedWebhook,
    result: 'failed' | 'duplicate',
    error: string | null,
    duplicateOf: string | null = null,
  ): Promise<string> {
    const id = uuidv7();
    await this.pool.query(
      `INSERT INTO webhook.webhook_events ${INSERT_COLUMNS}
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now())`,
      [id, ...this.values(webhook), result, error, duplicateOf, webhook.receivedAt],
    );
    return id;
  }

  /**
   * Takes the event for processing: inserts its pending row, or takes over the row of an earlier
   * delivery whose routing failed (or was abandoned by a crash). Null when another delivery already
   * processed it or is processing it now: this one is a duplicate.
   */
  async claim(webhook: ReceivedWebhook, id: string = uuidv7()): Promise<string | null> {
    const {
      rows: [row],
    } = await this.pool.query<{ id: string }>(
      `INSERT INTO webhook.webhook_events ${INSERT_COLUMNS}
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', NULL, NULL, $10, NULL)
       ON CONFLICT (source, external_event_id)
          WHERE signature_valid AND processing_result <> 'duplicate' AND external_event_id IS NOT NULL
       DO UPDATE SET processing_result = 'pending', processing_error = NULL,
                     deliveries = webhook_events.deliveries + 1, signature = EXCLUDED.signature,
                     payload = EXCLUDED.payload, received_at = EXCLUDED.received_at, updated_at = now()
          WHERE webhook_events.processing_result = 'failed'
             OR (webhook_events.processing_result = 'pending'
                 AND webhook_events.updated_at < now() - make_interval(secs => $11))
       RETURNING id`,
      [id, ...this.values(webhook), webhook.receivedAt, ABANDONED_AFTER_MS / 1000],
    );
    return row?.id ?? null;
  }

  /** The row that carries the event's processing, if any. */
  async findProcessing(source: string, externalEventId: string): Promise<WebhookEventRow | null> {
    const {
      rows: [row],
    } = await this.pool.query<WebhookEventRow>(
      `SELECT * FROM webhook.webhook_events
        WHERE source = $1 AND external_event_id = $2 AND signature_valid AND processing_result <> 'duplicate'`,
      [source, externalEventId],
    );
    return row ?? null;
  }

  /** True when the row is done or being worked on right now (not failed, not abandoned). */
  static isSettledOrInFlight(row: WebhookEventRow): boolean {
    const abandoned =
      row.processing_result === 'pending' && Date.now() - row.updated_at.getTime() > ABANDONED_AFTER_MS;
    return row.processing_result === 'success' || (row.processing_result === 'pending' && !abandoned);
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

  /** Counts an operator's reprocess of the row; its outcome is then recorded as for a delivery. */
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

  private values(webhook: ReceivedWebhook): unknown[] {
    return [
      webhook.source,
      webhook.externalEventId,
      webhook.eventType,
      webhook.signature?.slice(0, 200) ?? null,
      webhook.signatureValid,
      webhook.payload === undefined ? null : JSON.stringify(webhook.payload),
      webhook.rawBody,
      webhook.bodyBytes,
    ];
  }
}
