import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, MaxLength, Min } from 'class-validator';
import type { ProcessingResult } from '../webhooks/webhook-events.repository';

export const PROCESSING_RESULTS = ['pending', 'success', 'failed', 'duplicate'] as const;

export class ListWebhookEventsQuery {
  @IsOptional()
  @Matches(/^[a-z0-9_-]{1,50}$/, { message: 'source must be a source name such as provider' })
  source?: string;

  @IsOptional()
  @IsIn(PROCESSING_RESULTS, { message: `result must be one of ${PROCESSING_RESULTS.join(', ')}` })
  result?: ProcessingResult;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit = 50;

  /** The `next_cursor` of the previous page. */
  @IsOptional()
  @MaxLength(200)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'cursor is not valid' })
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
  body_bytes: number;
  received_at: string;
  processed_at: string | null;
  created_at: string;
  payload?: unknown;
  /** Base64 of the bytes as received, when they were not JSON. */
  raw_body?: string | null;
  signature?: string | null;
}
