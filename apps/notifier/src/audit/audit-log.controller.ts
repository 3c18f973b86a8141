import { ApiOperation } from '@nestjs/swagger';
import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { keysetPage, withIsoDates } from '@lib/database';
import { RequireManageGuild } from '@lib/guild-access';
import { ValidationError } from '@lib/problem-details';
import { type AuditLogEntryView, AuditLogQuery } from './audit-log.query';
import { type AuditRow, AuditLogRepository } from './audit-log.repository';

/**
 * Payload fields a guild administrator does not see: the payer's card and key references are the
 * payer's, not the guild's.
 */
const PRIVATE_FIELDS = new Set(['billing_key_id', 'card_last4']);

/** The guild's history: every event about it, newest first (MANAGE_GUILD, checked before the query is). */
@Controller()
export class AuditLogController {
  constructor(private readonly auditLog: AuditLogRepository) {}

  @ApiOperation({ summary: 'List the audit log' })
  @Get('api/v1/guilds/:guildId/audit-log')
  @RequireManageGuild({ params: 'guildId' })
  async list(
    @Param('guildId', new ParseUUIDPipe()) guildId: string,
    @Query() query: AuditLogQuery,
  ): Promise<{ items: AuditLogEntryView[]; next_cursor: string | null }> {
    if (query.from && query.to && Date.parse(query.to) < Date.parse(query.from)) {
      throw new ValidationError('to must not be before from', [
        { field: 'to', message: 'to must not be before from' },
      ]);
    }
    const rows = await this.auditLog.list({
      guildId,
      eventType: query.event_type,
      from: query.from,
      to: query.to,
      cursor: query.cursor,
      limit: query.limit,
    });
    return keysetPage(rows, query.limit, toView, (row) => row.event_id);
  }
}

function toView({ cursor_at: _cursorAt, ...row }: AuditRow): AuditLogEntryView {
  return {
    ...withIsoDates(row),
    payload: Object.fromEntries(Object.entries(row.payload).filter(([key]) => !PRIVATE_FIELDS.has(key))),
  };
}
