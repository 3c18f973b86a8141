import { Injectable, Logger } from '@nestjs/common';
import {
  isProviderEventType,
  PROVIDER_WEBHOOK_SOURCE,
  type ProviderEventOutcome,
  type RoutedProviderEvent,
} from '@lib/contracts';
import { jsonValueProblem } from '@lib/runtime';
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import { v7 as uuidv7 } from 'uuid';
import { BillingRouter, RoutingError } from './billing-router';
import { verifyProviderSignature } from './provider-signature';
import { isTossDeliveryProblem, readTossDelivery } from './toss-delivery';
import {
  LOOKUP_IDEMPOTENCY_TTL_SECONDS,
  IDEMPOTENCY_TTL_SECONDS,
  WebhookIdempotency,
} from './webhook-idempotency';
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

/** Of a body refused for its signature, at most this much is kept (with its size and SHA-256). */
export const FORGED_BODY_EXCERPT_BYTES = 4096;

/** What the endpoint answers; every outcome is also a recorded row. */
export type IntakeOutcome =
  | { kind: 'accepted' | 'duplicate' }
  | {
      kind: 'invalid_signature' | 'unparseable' | 'routing_failed' | 'refused';
      detail: string;
    };

/** An operator's reprocess: the row of the attempt it made, or why it made none. */
export type ReprocessOutcome =
  | { kind: 'attempted'; id: string }
  | { kind: 'unparseable'; detail: string }
  /** The event is routed, or being routed by a delivery now: `id` is that row. */
  | { kind: 'already_routed'; id: string };

export interface IncomingWebhook {
  /** The body as received, within the endpoint's limit (a larger one is refused before intake). */
  rawBody: Buffer;
  signature: string | undefined;
}

/**
 * How deliveries are believed (PROVIDER_WEBHOOK_VERIFICATION): by the spec's signature under the
 * webhook secret, or (Toss's unsigned bodies) by billing's look-up of the payment at the provider.
 */
export type WebhookVerification = { mode: 'signature'; secret: string } | { mode: 'lookup' };

interface ParsedEvent {
  /** The provider's event id (`signature`), or the key derived from the change (`lookup`). */
  eventId: string;
  eventType: string;
  /** What goes to billing; null for a type billing does not act on (recorded, not routed). */
  routed: RoutedProviderEvent | null;
}

/** How a delivery's attempt to take the event for routing ended. */
type Take = { taken: true } | { taken: false; duplicateOf: string };

/** Tries one delivery makes to take an event whose live row keeps changing, before a 500 (resent). */
const TAKE_ROUNDS = 3;

/**
 * docs/behaviour.md §4.9 in order: verify the signature over the raw bytes (`signature` mode; in
 * `lookup` mode nothing in the body is believed yet), claim the idempotency key, record the event
 * pending, route it to billing (which, in `lookup` mode, asks the provider about it), record the
 * result.
 *
 * Every request is a row of its own (docs/behaviour.md §2.8, "records every attempt"), and so is an operator's
 * reprocess: a delivery that routes the event again after a failure adds a row, and the failed one
 * keeps its error. Of an event's rows, one at a time is live (`pending` while routed, then
 * `success`), which the database's unique index makes so; the others are failed attempts, or
 * duplicates pointing at the row that was live when they came.
 *
 * An event is routed again only when no answer of billing's is on record for it: its deliveries so
 * far failed, or the one routing it was abandoned (its process died, or it could not record the
 * answer) without an answer. Routing to billing is therefore at least once, not exactly once:
 * billing remembers the events it applied and answers a repeat from its record.
 */
@Injectable()
export class WebhookIntakeService {
  private readonly logger = new Logger(WebhookIntakeService.name);
  private readonly source = PROVIDER_WEBHOOK_SOURCE;

  constructor(
    private readonly events: WebhookEventsRepository,
    private readonly idempotency: WebhookIdempotency,
    private readonly router: BillingRouter,
    private readonly verification: WebhookVerification,
  ) {}

  async receive(incoming: IncomingWebhook): Promise<IntakeOutcome> {
    const outcome = await this.process(incoming, new Date());
    webhookReceived.inc({ source: this.source, outcome: outcome.kind });
    return outcome;
  }

  /**
   * An operator's reprocess of the event the row records: routed as a delivery would be, in a row of
   * its own (`reprocess_of` names this one). Refused while the event has a routing answer on record,
   * or a delivery is routing it now.
   */
  async reprocess(row: WebhookEventRow): Promise<ReprocessOutcome> {
    const json = row.body_text === null ? row.payload : parseJson(row.body_text);
    const event = this.parse(json, row.raw_body ?? Buffer.from(row.body_text ?? '', 'utf8'));
    if (!row.signature_valid || 'problem' in event) {
      return {
        kind: 'unparseable',
        detail: 'only an admitted event with a readable body can be routed again',
      };
    }
    const id = uuidv7();
    const attempt: ReceivedWebhook = {
      source: row.source,
      externalEventId: event.eventId,
      eventType: event.eventType,
      signature: row.signature,
      signatureValid: true,
      payload: row.payload,
      bodyText: row.body_text,
      rawBody: row.raw_body,
      bodyBytes: row.body_bytes,
      bodySha256: null,
      bodyExcerpt: null,
      receivedAt: new Date(),
      reprocessOf: row.id,
    };
    const take = await this.take(id, attempt, event.eventId);
    if (!take.taken) return { kind: 'already_routed', id: take.duplicateOf };
    await settle(() => this.events.markReprocessing(row.id));
    await this.route(id, event);
    return { kind: 'attempted', id };
  }

  private async process(incoming: IncomingWebhook, receivedAt: Date): Promise<IntakeOutcome> {
    const { rawBody } = incoming;
    // This request's row, whatever it turns out to be: made once, so a retried insert adds no other.
    const id = uuidv7();
    const base = {
      source: this.source,
      signature: incoming.signature ?? null,
      bodyBytes: rawBody.length,
      receivedAt,
      reprocessOf: null,
    };
    if (
      this.verification.mode === 'signature' &&
      !verifyProviderSignature(rawBody, incoming.signature, this.verification.secret)
    ) {
      return this.refuseForged(id, base, rawBody);
    }
    const text = storableText(rawBody);
    const parsed = parseJson(text ?? rawBody.toString('utf8'));
    // JSON Postgres cannot store (NUL, half a surrogate pair) or nested past reason is kept as the
    // body received and never processed: recorded, not lost, and not a 500.
    const unstorable = parsed === undefined ? null : jsonValueProblem(parsed);
    const json = unstorable ? undefined : parsed;
    const read = json === undefined ? null : this.parse(json, rawBody);
    const event = read && !('problem' in read) ? read : null;
    const webhook: ReceivedWebhook = {
      ...base,
      externalEventId: event?.eventId ?? null,
      eventType: event?.eventType ?? null,
      // Admitted: signed (`signature` mode), or taken for a look-up (`lookup` mode: unsigned).
      signatureValid: true,
      payload: json,
      // The body as received (docs/behaviour.md §9.3): as text when Postgres can hold it so, else as bytes.
      bodyText: text,
      rawBody: text === null ? rawBody : null,
      bodySha256: null,
      bodyExcerpt: null,
    };
    if (!event) {
      const detail = unstorable
        ? `body not accepted: ${unstorable}`
        : json === undefined
          ? 'body is not JSON'
          : read && 'problem' in read
            ? read.problem
            : 'body not understood';
      await settle(() => this.events.recordFinal(id, webhook, 'failed', `unparseable: ${detail}`));
      this.logger.error({ alert: 'webhook_unparseable', detail }, 'an admitted webhook could not be parsed');
      return { kind: 'unparseable', detail };
    }

    const claim = await this.idempotency.claim(this.source, event.eventId, this.idempotencyTtlSeconds());
    if (claim === 'exists') {
      // Usually a plain duplicate; but if the delivery routing it was abandoned, take it over.
      const live = await settle(() => this.events.findLive(this.source, event.eventId));
      if (live && !WebhookEventsRepository.isAbandoned(live)) return this.duplicate(id, webhook, live.id);
    }
    const take = await this.take(id, webhook, event.eventId);
    if (!take.taken) return this.duplicate(id, webhook, take.duplicateOf);
    return this.route(id, event);
  }

  /**
   * A body whose signature fails is anyone's, of any size up to the limit: it is neither parsed nor
   * stored. The row keeps its size, its SHA-256 and its first 4 KiB, enough to recognise a replayed
   * or tampered delivery, and nothing an attacker can use to fill the database.
   */
  private async refuseForged(
    id: string,
    base: Pick<ReceivedWebhook, 'source' | 'signature' | 'bodyBytes' | 'receivedAt' | 'reprocessOf'>,
    rawBody: Buffer,
  ): Promise<IntakeOutcome> {
    webhookRejected.inc({ source: this.source });
    const forged: ReceivedWebhook = {
      ...base,
      externalEventId: null,
      eventType: null,
      signatureValid: false,
      payload: undefined,
      bodyText: null,
      rawBody: null,
      bodySha256: createHash('sha256').update(rawBody).digest('hex'),
      bodyExcerpt: rawBody.subarray(0, FORGED_BODY_EXCERPT_BYTES),
    };
    await settle(() => this.events.recordFinal(id, forged, 'failed', 'signature invalid'));
    this.logger.warn(
      { alert: 'webhook_signature_invalid', bytes: rawBody.length },
      'webhook signature invalid',
    );
    return { kind: 'invalid_signature', detail: 'The Provider-Signature header does not match the body.' };
  }

  private async duplicate(id: string, webhook: ReceivedWebhook, of: string): Promise<IntakeOutcome> {
    await settle(() => this.events.recordFinal(id, webhook, 'duplicate', null, of));
    return { kind: 'duplicate' };
  }

  /**
   * Takes the event for routing in row `id`, unless another row carries it: one routed, or one
   * being routed. A row abandoned without an answer is closed as failed and the event taken over.
   *
   * A connection cut at the wrong moment can lose the answer of an insert that committed. The insert
   * is then made again with the same id, which adds nothing, and the live row being this very one
   * says the event is this request's to route: no other delivery is taken for it.
   */
  private async take(id: string, webhook: ReceivedWebhook, eventId: string): Promise<Take> {
    for (let round = 1; ; round += 1) {
      if (await settle(() => this.events.claim(webhook, id))) return { taken: true };
      const live = await settle(() => this.events.findLive(this.source, eventId));
      if (live?.id === id) return { taken: true };
      if (live && !WebhookEventsRepository.isAbandoned(live)) return { taken: false, duplicateOf: live.id };
      if (round >= TAKE_ROUNDS) {
        throw new Error(`event ${eventId} changed hands ${round} times while a delivery tried to take it`);
      }
      // None (the live one failed meanwhile), or abandoned: try again.
      if (live) await settle(() => this.events.markAbandoned(live.id));
    }
  }

  /**
   * The envelope fields intake needs, per mode: the spec's signed envelope (its data is billing's to
   * check), or Toss's body, keyed on what identifies the change.
   */
  private parse(json: unknown, rawBody: Buffer): ParsedEvent | { problem: string } {
    if (this.verification.mode === 'signature') {
      return parseEvent(json) ?? { problem: 'body lacks a string eventId and eventType' };
    }
    const delivery = readTossDelivery(json, rawBody);
    if (isTossDeliveryProblem(delivery)) return delivery;
    return { eventId: delivery.changeKey, eventType: delivery.eventType, routed: delivery.routed };
  }

  /**
   * The spec's 24 h for the signed envelope's event ids; Toss resends for 3 days 19 hours, and its
   * keys must outlive the last resend (the database's row stays the final word after either).
   */
  private idempotencyTtlSeconds(): number {
    return this.verification.mode === 'lookup' ? LOOKUP_IDEMPOTENCY_TTL_SECONDS : IDEMPOTENCY_TTL_SECONDS;
  }

  private async route(id: string, event: ParsedEvent): Promise<IntakeOutcome> {
    const { routed } = event;
    if (!routed) {
      this.logger.warn(
        { event_type: event.eventType, event_id: event.eventId },
        'webhook of a type billing does not act on recorded, not routed',
      );
      await settle(() => this.events.markSucceeded(id, 'not_routed'));
      return { kind: 'accepted' };
    }
    let outcome: ProviderEventOutcome;
    try {
      outcome = await this.router.route(routed);
    } catch (error) {
      const detail = error instanceof RoutingError ? error.message : `routing failed: ${String(error)}`;
      await settle(() => this.events.markFailed(id, detail));
      await this.idempotency.release(this.source, event.eventId);
      if (error instanceof RoutingError && error.refused) {
        // Billing refused the event itself (its data). Answered 500 all the same, as the spec says of
        // a routing failure: the provider resends, each resend is a failed row of its own, and the
        // alert tells the operators; once the cause is fixed, a resend or a reprocess goes through.
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
    if (outcome.outcome === 'unconfirmed') {
      // Recorded and answered as accepted, never applied: the provider knows no such payment.
      this.logger.warn(
        {
          alert: 'webhook_unconfirmed',
          event_id: event.eventId,
          event_type: event.eventType,
          detail: outcome.detail,
        },
        'the provider does not confirm a webhook; nothing applied',
      );
    }
    await settle(() => this.events.markSucceeded(id, outcome.outcome));
    return { kind: 'accepted' };
  }
}

const SETTLE_ATTEMPTS = 6;
const SETTLE_FIRST_WAIT_MS = 200;

/**
 * A request's database work, retried through a short outage (about 6 s in all), so that every
 * delivery is recorded and none is left half done. Recording how a routed event ended is the main
 * case: billing has already acted, and a row left `pending` would make the provider's resend look
 * like a delivery still in flight, answered as a duplicate, until the row counts as abandoned. Past
 * that, the error stands: the 503 makes the provider resend, and a resend after the abandonment
 * time takes over. Each statement retried is idempotent (an insert under the request's own id, an
 * update to a final state).
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

/** The body as text, when it is UTF-8 that a Postgres text column holds byte for byte (no NUL). */
function storableText(raw: Buffer): string | null {
  return isUtf8(raw) && !raw.includes(0) ? raw.toString('utf8') : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The signed envelope's fields intake needs; the event's own data is billing's to check. */
function parseEvent(json: unknown): ParsedEvent | null {
  if (typeof json !== 'object' || json === null) return null;
  const { eventId, eventType, data } = json as Record<string, unknown>;
  if (typeof eventId !== 'string' || eventId.length === 0 || eventId.length > 200) return null;
  if (typeof eventType !== 'string' || eventType.length === 0 || eventType.length > 100) return null;
  const routed = isProviderEventType(eventType)
    ? ({ event_id: eventId, event_type: eventType, data: data ?? {} } as RoutedProviderEvent)
    : null;
  return { eventId, eventType, routed };
}
