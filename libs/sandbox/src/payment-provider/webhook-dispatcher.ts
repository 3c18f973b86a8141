import { PROVIDER_SIGNATURE_HEADER, type ProviderWebhookBody, type TossWebhookBody } from '@lib/contracts';
import { setTimeout as sleep } from 'node:timers/promises';
import { BoundedLog } from '../chat-platform/bounded-log';
import type { WebhookDelivery } from './provider-state';
import { type SignatureOptions, signWebhookBody } from './webhook-signature';
import { resendDelaysMs, transmissionHeaders } from './webhook-toss';

const DELIVERY_TIMEOUT_MS = 10_000;

export interface WebhookResponse {
  status: number;
  body: string;
}

export async function postWebhook(
  url: string,
  rawBody: string | Buffer,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<WebhookResponse> {
  const response = await fetch(url, { method: 'POST', body: rawBody, headers, signal });
  return { status: response.status, body: await response.text() };
}

/** POSTs the event as the provider does: the JSON body, signed over exactly the bytes sent. */
export function postSignedWebhook(
  url: string,
  event: ProviderWebhookBody,
  secret: string,
  options: SignatureOptions & { signature?: string } = {},
  signal?: AbortSignal,
): Promise<WebhookResponse> {
  const rawBody = JSON.stringify(event);
  return postWebhook(
    url,
    rawBody,
    {
      'Content-Type': 'application/json',
      [PROVIDER_SIGNATURE_HEADER]: options.signature ?? signWebhookBody(rawBody, secret, options),
    },
    signal,
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch wraps the socket error (ECONNREFUSED and the like) as its cause.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * The fake's own webhooks, sent in the background after state changes: failures are swallowed
 * (as a provider retrying later would) but recorded, and `flush()` lets a test wait for them. The
 * spec's signed envelope is sent once; a Toss delivery is resent on Toss's schedule until answered
 * 200, each transmission recorded.
 */
export class WebhookDispatcher {
  private readonly deliveries: BoundedLog<WebhookDelivery>;
  private readonly pending = new Set<Promise<void>>();
  private aborter = new AbortController();
  /** Bumped by reset(), so deliveries still in flight do not land in the fresh log. */
  private generation = 0;

  constructor(
    private readonly secret: string,
    capacity: number,
  ) {
    this.deliveries = new BoundedLog(capacity);
  }

  dispatch(url: string, event: ProviderWebhookBody): void {
    const generation = this.generation;
    const signal = AbortSignal.any([this.aborter.signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]);
    const delivery = postSignedWebhook(url, event, this.secret, {}, signal)
      .then(
        ({ status }) => ({ status, error: null }),
        (error: unknown) => ({ status: null, error: describe(error) }),
      )
      .then((result) => {
        if (generation !== this.generation) return;
        this.deliveries.push({
          eventId: event.eventId,
          eventType: event.eventType,
          retriedCount: 0,
          ...result,
        });
      })
      .finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
  }

  /**
   * Sends a Toss delivery, and resends it as Toss does while it is not answered 200: seven times,
   * after Toss's intervals multiplied by `timeScale`. Resolves with its transmissions (also in the
   * log) once one is answered 200 or the last has failed; `reset()` and `abortInFlight()` end it.
   */
  dispatchToss(url: string, body: TossWebhookBody, timeScale: number): Promise<WebhookDelivery[]> {
    const generation = this.generation;
    const delays = resendDelaysMs(timeScale);
    const rawBody = JSON.stringify(body);
    const signal = this.aborter.signal;
    const transmissions: WebhookDelivery[] = [];
    const run = async () => {
      for (let retriedCount = 0; retriedCount <= delays.length; retriedCount++) {
        if (retriedCount > 0) await sleep(delays[retriedCount - 1], undefined, { signal });
        const result = await postWebhook(
          url,
          rawBody,
          transmissionHeaders(retriedCount),
          AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
        ).then(
          ({ status }) => ({ status, error: null }),
          (error: unknown) => ({ status: null, error: describe(error) }),
        );
        if (generation !== this.generation) return;
        const transmission = { eventId: null, eventType: body.eventType, retriedCount, ...result };
        transmissions.push(transmission);
        this.deliveries.push(transmission);
        if (result.status === 200 || signal.aborted) return;
      }
    };
    // An abort ends the resends: what was sent so far stays recorded.
    const delivery = run()
      .catch(() => undefined)
      .finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
    return delivery.then(() => transmissions.map((transmission) => ({ ...transmission })));
  }

  /** Resolves once every delivery started so far (and any started meanwhile) has finished. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  log(): WebhookDelivery[] {
    return this.deliveries.entries().map((delivery) => ({ ...delivery }));
  }

  /** Cuts deliveries in flight short; they are recorded as failed. */
  abortInFlight(): void {
    this.aborter.abort();
    this.aborter = new AbortController();
  }

  reset(): void {
    this.generation++;
    this.abortInFlight();
    this.deliveries.clear();
  }
}
