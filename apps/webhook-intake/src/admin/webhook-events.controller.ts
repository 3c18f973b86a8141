import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, UseGuards } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { decodeKeysetCursor, type KeysetPage, keysetPage } from '@lib/database';
import { WebhookErrors } from '../webhooks/webhooks.errors';
import { outcomeError } from '../webhooks/webhook-endpoint';
import { WebhookIntakeService } from '../webhooks/webhook-intake.service';
import { type WebhookEventRow, WebhookEventsRepository } from '../webhooks/webhook-events.repository';
import { AdminTokenGuard } from './admin-token.guard';
import { ListWebhookEventsQuery, type WebhookEventView } from './webhook-events.dto';

/**
 * Operator tools (docs/decisions/operator-tools.md): recent events by source and result, one event, and reprocessing.
 * Not behind the gateway; the admin token guards them instead of a user's identity.
 *
 * A row is one delivery (or one reprocess) with its own outcome and error; one row read alone lists
 * every attempt of its event beside it.
 */
@Controller('admin/v1/webhook-events')
@PublicRoute()
@UseGuards(AdminTokenGuard)
export class WebhookEventsController {
  constructor(
    private readonly events: WebhookEventsRepository,
    private readonly intake: WebhookIntakeService,
  ) {}

  @Get()
  async list(@Query() query: ListWebhookEventsQuery): Promise<KeysetPage<WebhookEventView>> {
    const rows = await this.events.list({
      source: query.source,
      result: query.result,
      limit: query.limit + 1,
      before: query.cursor ? decodeKeysetCursor(query.cursor) : undefined,
    });
    return keysetPage(rows, query.limit, (row) => toView(row, false));
  }

  @Get(':id')
  async get(@Param('id', new ParseUUIDPipe()) id: string): Promise<WebhookEventView> {
    return this.detail(await this.require(id));
  }

  /** Routes the event again and records the outcome; answers with the updated event. */
  @Post(':id/reprocess')
  @HttpCode(200)
  async reprocess(@Param('id', new ParseUUIDPipe()) id: string): Promise<WebhookEventView> {
    // The attempt is a row of its own, which the answer is (with the event's attempts). Refused
    // (409) while billing's answer to the event is on record or a delivery is routing it now: an
    // event is routed again only when it has no answer.
    const outcome = await this.intake.reprocess(await this.require(id));
    switch (outcome.kind) {
      case 'unparseable':
        throw outcomeError(outcome);
      case 'already_routed':
        throw WebhookErrors.alreadyRouted(`The event is routed, or being routed now, by row ${outcome.id}.`, {
          routed_by: outcome.id,
        });
      case 'attempted':
        return this.detail(await this.require(outcome.id));
    }
  }

  private async require(id: string): Promise<WebhookEventRow> {
    const row = await this.events.get(id);
    if (!row) throw WebhookErrors.eventNotFound();
    return row;
  }

  private async detail(row: WebhookEventRow): Promise<WebhookEventView> {
    const attempts = row.external_event_id
      ? await this.events.attempts(row.source, row.external_event_id)
      : [];
    return { ...toView(row, true), attempts: attempts.map((attempt) => toView(attempt, false)) };
  }
}

function toView(row: WebhookEventRow, detail: boolean): WebhookEventView {
  return {
    id: row.id,
    source: row.source,
    external_event_id: row.external_event_id,
    event_type: row.event_type,
    signature_valid: row.signature_valid,
    processing_result: row.processing_result,
    processing_error: row.processing_error,
    routing_outcome: row.routing_outcome,
    deliveries: row.deliveries,
    reprocessed: row.reprocessed,
    duplicate_of: row.duplicate_of,
    reprocess_of: row.reprocess_of,
    body_bytes: row.body_bytes,
    body_sha256: row.body_sha256,
    received_at: row.received_at.toISOString(),
    processed_at: row.processed_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    ...(detail
      ? {
          payload: row.payload,
          body: row.body_text,
          raw_body: row.raw_body?.toString('base64') ?? null,
          body_excerpt: row.body_excerpt?.toString('base64') ?? null,
          signature: row.signature,
        }
      : {}),
  };
}
