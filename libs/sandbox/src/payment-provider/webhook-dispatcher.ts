import { PROVIDER_SIGNATURE_HEADER, type ProviderWebhookBody } from '@lib/contracts';
import { BoundedLog } from '../chat-platform/bounded-log';
import type { WebhookDelivery } from './provider-state';
import { type SignatureOptions, signWebhookBody } from './webhook-signature';

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
 * (as a provider retrying later would) but recorded, and `flush()` lets a test wait for them.
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
        this.deliveries.push({ eventId: event.eventId, eventType: event.eventType, ...result });
      })
      .finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
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
