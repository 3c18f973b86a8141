import { EVENT_PRODUCERS, type EventType } from '@lib/contracts';
import type { WithIsoDates } from '@lib/database';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, Matches, Max, MaxLength, Min } from 'class-validator';
import type { AuditRow } from './audit-log.repository';

const EVENT_TYPES = Object.keys(EVENT_PRODUCERS) as EventType[];

export class AuditLogQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(200, { message: 'limit must be at most 200' })
  limit = 50;

  /** Only events of this type. */
  @IsOptional()
  @IsIn(EVENT_TYPES, { message: `event_type must be one of ${EVENT_TYPES.join(', ')}` })
  event_type?: EventType;

  /** Only events that occurred at or after this instant (ISO 8601, e.g. `2026-11-01T00:00:00Z`). */
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date and time' })
  from?: string;

  /** Only events that occurred before this instant (ISO 8601); with `from`, not before it. */
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date and time' })
  to?: string;

  /** The `next_cursor` of the previous page. */
  @IsOptional()
  @MaxLength(200)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'cursor is not valid' })
  cursor?: string;
}

/** An audit log entry as the API answers it: its row with dates as ISO strings, less the keyset column. */
export type AuditLogEntryView = Omit<WithIsoDates<AuditRow>, 'cursor_at'>;
