import { Injectable, Logger } from '@nestjs/common';
import {
  isProviderEventType,
  PROVIDER_WEBHOOK_SOURCE,
  type ProviderEventOutcome,
  type RoutedProviderEvent,
} from '@lib/contracts';
import { jsonValueProblem } from '@lib/runtime';
import { Counter } from 'prom-client';
import { v7 as uuidv7 } from 'uuid';
import { BillingRouter, RoutingError } from './billing-router';
import { verifyProviderSignature } from './provider-signature';
import { WebhookIdempotency } from './webhook-idempotency';
import {
  type ReceivedWebhook,
  WebhookEventsRepository,
  type WebhookEventRow,
} from './webhook-events.repository';

export const webhookReceived = new Counter({
  name: 'webhook_received_total',
  help: 'WebhookReceived: requests to the webhook endpoint, by source and outcome',
  labelNames: ['source', 'outcome'],
});
export const webhookRejected = new Counter({
  name: 'webhook_rejected_total',
  help: 'WebhookRejected: requests refused for their signature (feeds the security alert)',
  labelNames: ['source'],
});

/** What the endpoint answers; every outcome is also a recorded row. */
export type IntakeOutcome =
  | { kind: 'accepted' | 'duplicate' }
  | {
      kind: 'invalid_signature' | 'unparseable' | 'too_large' | 'routing_failed' | 'refused';
      detail: string;
    };

export interface IncomingWebhook {
  rawBody: Buffer | undefined;
  bodyBytes: number;
  signature: string | undefined;
}

interface ParsedEvent {
  eventId: string;
  eventType: string;
  data: unknown;
}

/**
 * Spec §4.9 in order: verify the signature over the raw bytes, claim the idempotency key, record the
 * event pending, route it to billing, record the result. A failed routing releases the key and
 * leaves the row `failed`, so the provider's resend is processed again rather than answered as a
 * duplicate; the unique row in the database makes it exactly once when the idempotency store is down.
 */
@Injectable()
export class WebhookIntakeService {
  private readonly logger = new Logger(WebhookIntakeService.name);
  private readonly source = PROVIDER_WEBHOOK_SOURCE;

  constructor(
    private readonly events: WebhookEventsRepository,
    private readonly idempotency: WebhookIdempotency,
    private readonly router: BillingRouter,
    private readonly secret: string,
  ) {}

  async receive(incoming: IncomingWebhook): Promise<IntakeOutcome> {
    const outcome = await this.process(incoming, new Date());
    webhookReceived.inc({ source: this.source, outcome: outcome.kind });
    return outcome;
  }

  /** An operator's reprocess: routes the recorded event again and records the outcome on its row. */
  async reprocess(row: WebhookEventRow): Promise<IntakeOutcome> {
    const event = parseEvent(row.payload);
    if (!row.signature_valid || !event) {
      return { kind: 'unparseable', detail: 'only a signed event with a readable body can be routed again' };
    }
    await this.events.markReprocessing(row.id);
    return this.route(row.id, event);
  }

  private async process(incoming: IncomingWebhook, receivedAt: Date): Promise<IntakeOutcome> {
    const base = {
      source: this.source,
      signature: incoming.signature ?? null,
      bodyBytes: incoming.bodyBytes,
      receivedAt,
    };
    if (!incoming.rawBody) {
      const detail = `body of ${incoming.bodyBytes} bytes is over the 1 MiB limit`;
      await this.events.recordFinal(
        {
          ...base,
          externalEventId: null,
          eventType: null,
          signatureValid: false,
          payload: null,
          rawBody: null,
        },
        'failed',
        detail,
      );
      return { kind: 'too_large', detail };
    }
    const parsed = parseJson(incoming.rawBody);
    // JSON Postgres cannot store (NUL, half a surrogate pair) or nested past reason is kept as the
    // bytes received and never processed: recorded, not lost, and not a 500.
    const unstorable = parsed === undefined ? null : jsonValueProblem(parsed);
    const json = unstorable ? undefined : parsed;
    const event = parseEvent(json);
    const webhook: ReceivedWebhook = {
      ...base,
      externalEventId: event?.eventId ?? null,
      eventType: event?.eventType ?? null,
      signatureValid: verifyProviderSignature(incoming.rawBody, incoming.signature, this.secret),
      payload: json,
      rawBody: json === undefined ? incoming.rawBody : null,
    };
    if (!webhook.signatureValid) {
      webhookRejected.inc({ source: this.source });
      await this.events.recordFinal(webhook, 'failed', 'signature invalid');
      this.logger.warn(
        { alert: 'webhook_signature_invalid', bytes: incoming.bodyBytes },
        'webhook signature invalid',
      );
      return { kind: 'invalid_signature', detail: 'The Provider-Signature header does not match the body.' };
    }
    if (!event) {
      const detail = unstorable
        ? `body not accepted: ${unstorable}`
        : json === undefined
          ? 'body is not JSON'
          : 'body lacks a string eventId and eventType';
      await this.events.recordFinal(webhook, 'failed', `unparseable: ${detail}`);
      this.logger.error({ alert: 'webhook_unparseable', detail }, 'a signed webhook could not be parsed');
      return { kind: 'unparseable', detail };
    }

    const claim = await this.idempotency.claim(this.source, event.eventId);
    if (claim === 'exists') {
      // Usually a plain duplicate; but if the first delivery's process died mid-routing, take it over.
      const original = await this.events.findProcessing(this.source, event.eventId);
      if (original && WebhookEventsRepository.isSettledOrInFlight(original)) {
        await this.events.recordFinal(webhook, 'duplicate', null, original.id);
        return { kind: 'duplicate' };
      }
    }
    const id = await this.claim(webhook, event.eventId);
    if (!id) {
      const original = await this.events.findProcessing(this.source, event.eventId);
      await this.events.recordFinal(webhook, 'duplicate', null, original?.id ?? null);
      return { kind: 'duplicate' };
    }
    return this.route(id, event);
  }

  /**
   * Claims the event's row. A connection cut at the wrong moment can lose the answer of a claim that
   * committed: the row would then look like a delivery in flight to every resend (a duplicate) and
   * never be routed. So once the database answers again, a pending row this request wrote (its id,
   * or on a takeover its receipt time) is taken as this request's own.
   */
  private async claim(webhook: ReceivedWebhook, eventId: string): Promise<string | null> {
    const claimId = uuidv7();
    try {
      return await this.events.claim(webhook, claimId);
    } catch {
      return settle(async () => {
        const row = await this.events.findProcessing(this.source, eventId);
        const ours =
          row?.processing_result === 'pending' &&
          (row.id === claimId || row.received_at.getTime() === webhook.receivedAt.getTime());
        return ours ? row.id : this.events.claim(webhook, claimId);
      });
    }
  }

  private async route(id: string, event: ParsedEvent): Promise<IntakeOutcome> {
    if (!isProviderEventType(event.eventType)) {
      this.logger.warn(
        { event_type: event.eventType, event_id: event.eventId },
        'webhook of an unknown type recorded, not routed',
      );
      await this.events.markSucceeded(id, 'not_routed');
      return { kind: 'accepted' };
    }
    let outcome: ProviderEventOutcome;
    try {
      const routed = {
        event_id: event.eventId,
        event_type: event.eventType,
        data: (event.data ?? {}) as RoutedProviderEvent['data'],
      } as RoutedProviderEvent;
      outcome = await this.router.route(routed);
    } catch (error) {
      const detail = error instanceof RoutingError ? error.message : `routing failed: ${String(error)}`;
      await settle(() => this.events.markFailed(id, detail));
      await this.idempotency.release(this.source, event.eventId);
      if (error instanceof RoutingError && error.refused) {
        // Billing refused the event itself (its data): resending cannot change that. Recorded
        // failed for the operators (an alert), answered 4xx; a resend after a fix is processed again.
        this.logger.error(
          {
            alert: 'webhook_refused_by_billing',
            event_id: event.eventId,
            event_type: event.eventType,
            detail,
          },
          'billing refused a verified webhook',
        );
        return { kind: 'refused', detail };
      }
      this.logger.warn(
        { event_id: event.eventId, event_type: event.eventType, detail },
        'webhook routing failed',
      );
      return { kind: 'routing_failed', detail };
    }
    await settle(() => this.events.markSucceeded(id, outcome.outcome));
    return { kind: 'accepted' };
  }
}

const SETTLE_ATTEMPTS = 6;
const SETTLE_FIRST_WAIT_MS = 200;

/**
 * Database work of a request that must not be lost halfway, retried through a short outage (about
 * 6 s in all). Recording how a routed event ended is the main case: billing
 * has already acted, and a row left `pending` would make the provider's resend look like a delivery
 * still in flight, answered as a duplicate, until the row counts as abandoned. Past that, the error
 * stands: the 500 makes the provider resend, and a resend after the abandonment time takes over.
 */
async function settle<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= SETTLE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_FIRST_WAIT_MS * 2 ** (attempt - 1)));
    }
  }
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The envelope fields intake needs; the event's own data is billing's to check. */
function parseEvent(json: unknown): ParsedEvent | null {
  if (typeof json !== 'object' || json === null) return null;
  const { eventId, eventType, data } = json as Record<string, unknown>;
  if (typeof eventId !== 'string' || eventId.length === 0 || eventId.length > 200) return null;
  if (typeof eventType !== 'string' || eventType.length === 0 || eventType.length > 100) return null;
  return { eventId, eventType, data };
}
