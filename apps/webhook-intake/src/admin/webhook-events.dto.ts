import { IsKeysetCursor, IsPageLimit, type WithIsoDates } from '@lib/database';
import { IsIn, IsOptional, Matches } from 'class-validator';
import type { ProcessingResult, WebhookEventRow } from '../webhooks/webhook-events.repository';

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

/**
 * A webhook event as the operator tools answer it: its row with dates as ISO strings, less
 * `updated_at` and what was received, which only a read of one event adds (bodies as text or base64).
 */
export type WebhookEventView = Omit<
  WithIsoDates<WebhookEventRow>,
  'signature' | 'payload' | 'body_text' | 'raw_body' | 'body_excerpt' | 'updated_at'
> & {
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
};
