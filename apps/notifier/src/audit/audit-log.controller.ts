import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { decodeKeysetCursor, encodeKeysetCursor, keysetTimeSql } from '@lib/database';
import { RequireManageGuild } from '@lib/guild-access';
import { ValidationError } from '@lib/problem-details';
import { DataSource } from 'typeorm';
import { type AuditLogEntryView, AuditLogQuery } from './audit-log.query';

/**
 * Payload fields a guild administrator does not see: the payer's card and key references are the
 * payer's, not the guild's.
 */
const PRIVATE_FIELDS = new Set(['billing_key_id', 'card_last4']);

interface AuditRow {
  event_id: string;
  event_type: string;
  producer: string;
  aggregate_type: string;
  aggregate_id: string;
  occurred_at: Date;
  correlation_id: string | null;
  payload: Record<string, unknown>;
  recorded_at: Date;
  cursor_at: string;
}

/** The guild's history: every event about it, newest first (MANAGE_GUILD, checked before the query is). */
@Controller()
export class AuditLogController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('api/v1/guilds/:guildId/audit-log')
  @RequireManageGuild({ params: 'guildId' })
  async list(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Query() query: AuditLogQuery,
  ): Promise<{ items: AuditLogEntryView[]; next_cursor: string | null }> {
    const params: unknown[] = [guildId];
    const conditions = ['guild_id = $1'];
    if (query.event_type) conditions.push(`event_type = $${params.push(query.event_type)}`);
    if (query.from && query.to && Date.parse(query.to) < Date.parse(query.from)) {
      throw new ValidationError('to must not be before from', [
        { field: 'to', message: 'to must not be before from' },
      ]);
    }
    if (query.from) conditions.push(`occurred_at >= $${params.push(query.from)}::timestamptz`);
    if (query.to) conditions.push(`occurred_at < $${params.push(query.to)}::timestamptz`);
    if (query.cursor) {
      const before = decodeKeysetCursor(query.cursor);
      conditions.push(
        `(occurred_at, event_id) < ($${params.push(before.at)}::timestamptz, $${params.push(before.id)}::uuid)`,
      );
    }
    const rows = await this.dataSource.query<AuditRow[]>(
      `SELECT event_id, event_type, producer, aggregate_type, aggregate_id, occurred_at, correlation_id,
              payload, recorded_at, ${keysetTimeSql('occurred_at')} AS cursor_at
         FROM notification.audit_log
        WHERE ${conditions.join(' AND ')}
        ORDER BY occurred_at DESC, event_id DESC
        LIMIT $${params.push(query.limit + 1)}`,
      params,
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toView),
      next_cursor:
        rows.length > query.limit && last
          ? encodeKeysetCursor({ at: last.cursor_at, id: last.event_id })
          : null,
    };
  }
}

function toView(row: AuditRow): AuditLogEntryView {
  return {
    event_id: row.event_id,
    event_type: row.event_type,
    producer: row.producer,
    aggregate_type: row.aggregate_type,
    aggregate_id: row.aggregate_id,
    occurred_at: row.occurred_at.toISOString(),
    correlation_id: row.correlation_id,
    payload: Object.fromEntries(Object.entries(row.payload).filter(([key]) => !PRIVATE_FIELDS.has(key))),
    recorded_at: row.recorded_at.toISOString(),
  };
}
