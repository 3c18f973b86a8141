import { IsKeysetCursor, IsPageLimit } from '@lib/database';
import { IsIn, IsOptional, Matches } from 'class-validator';
import type { ProcessingResult } from '../webhooks/webhook-events.repository';

export const PROCESSING_RESULTS = ['pending', 'success', 'failed', 'duplicate'] as const;

export class ListWebhookEventsQuery {
  @IsOptional()
  @Matches(/^[a-z0-9_-]{1,50}$/, { message: 'source must be a source name such as provider' })
  source?: string;

  @IsOptional()
  @IsIn(PROCESSING_RESULTS, { message: `result must be one of ${PROCESSING_RESULTS.join(', ')}` })
  result?: ProcessingResult;

  @IsPageLimit(200)
  limit = 50;

  /** The `next_cursor` of the previous page. */
  @IsKeysetCursor()
  cursor?: string;
}

export interface WebhookEventView {
  id: string;
  source: string;
  external_event_id: string | null;
  event_type: string | null;
  signature_valid: boolean;
  processing_result: ProcessingResult;
  processing_error: string | null;
  routing_outcome: string | null;
  deliveries: number;
  reprocessed: number;
  duplicate_of: string | null;
  /** On an operator's reprocess: the row it was asked for. */
  reprocess_of: string | null;
  body_bytes: number;
  /** SHA-256 (hex) of the body of a request refused for its signature; null otherwise. */
  body_sha256: string | null;
  received_at: string;
  processed_at: string | null;
  created_at: string;
  /** The body parsed (jsonb: key order and integers above 2^53 are not kept). */
  payload?: unknown;
  /** The signed body exactly as received, when it is UTF-8 text. */
  body?: string | null;
  /** Base64 of the signed body as received, when it is not text (invalid UTF-8, a NUL byte). */
  raw_body?: string | null;
  /** Base64 of the first 4 KiB of a body refused for its signature (the rest is not kept). */
  body_excerpt?: string | null;
  signature?: string | null;
  /** Read alone: every row of the event, oldest first (deliveries, reprocesses, their duplicates). */
  attempts?: WebhookEventView[];
}
