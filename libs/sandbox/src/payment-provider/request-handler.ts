import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BoundedLog } from '../chat-platform/bounded-log';
import { chargeBillingKey } from './charge-billing-key';
import type { ChargeMishaps, ChargeRejections } from './charge-rejections';
import type { RecordedAnswer } from './idempotency-cache';
import { issueBillingKey } from './issue-billing-key';
import { wholeSeconds } from './kst-time';
import type { OutageInjector } from './outage-injector';
import { ProviderHttpError, TemporaryProviderError, providerError } from './provider-error';
import { decodePath } from '../request-reading';
import { matchRoute } from './provider-routes';
import type { PaymentRequestRecord, StoredCharge } from './provider-state';
import type { ProviderStore } from './provider-store';
import { readBody } from './request-body';

/**
 * Toss's idempotency keys are at most 300 characters and kept 15 days
 * (docs.tosspayments.com/guides/using-api/idempotency-key); a longer one is INVALID_IDEMPOTENCY_KEY.
 */
const MAX_IDEMPOTENCY_KEY_LENGTH = 300;

export interface ProviderRequestContext {
  secretKey: string;
  store: ProviderStore;
  outages: OutageInjector;
  rejections: ChargeRejections;
  mishaps: ChargeMishaps;
  requests: BoundedLog<PaymentRequestRecord>;
  /** Read per request: the control API changes it while the server runs. */
  chargeDelayMs: () => number;
  /** Told of each decided charge as soon as it is decided, before a held answer is written. */
  onCharge: (charge: StoredCharge) => void;
  /** Where receipt pages are served (the fake's own address + RECEIPT_PATH). */
  receiptBaseUrl: () => string;
  /** Aborted when the server stops, to drop answers held by the charge delay. */
  stopping: AbortSignal;
}

type Authorization = PaymentRequestRecord['authorization'];

interface Outcome {
  answer: RecordedAnswer;
  replayed: boolean;
  /** Slow mode: how long the decided answer waits before being written. */
  holdMs: number;
  /** Runs once the hold is over (answer written or dropped). */
  settle?: () => void;
}

const answerOf = (status: number, body: unknown): RecordedAnswer => ({ status, json: JSON.stringify(body) });
const errorAnswer = (error: ProviderHttpError): RecordedAnswer => answerOf(error.status, error.body());
const immediate = (answer: RecordedAnswer): Outcome => ({ answer, replayed: false, holdMs: 0 });

function firstHeader(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** The provider's Basic scheme: the secret key as the user name and an empty password. */
function checkAuthorization(header: string | null, secretKey: string): Authorization {
  if (header === null) return 'missing';
  const credentials = /^Basic\s+(\S+)$/i.exec(header.trim())?.[1];
  if (credentials === undefined) return 'wrong';
  return Buffer.from(credentials, 'base64').toString('utf8') === `${secretKey}:` ? 'ok' : 'wrong';
}

function chargeOutcome(
  billingKey: string,
  raw: Buffer,
  idempotencyHeader: string | null,
  context: ProviderRequestContext,
): Outcome {
  const outage = context.outages.take('charge');
  if (outage) throw outage;
  if (
    idempotencyHeader !== null &&
    (idempotencyHeader.length === 0 || idempotencyHeader.length > MAX_IDEMPOTENCY_KEY_LENGTH)
  ) {
    throw providerError.invalidIdempotencyKey();
  }
  const cache = context.store.idempotency;
  if (idempotencyHeader !== null) {
    const previous = cache.lookup(idempotencyHeader);
    if (previous === 'processing') throw providerError.idempotentRequestProcessing();
    if (previous) return { answer: previous, replayed: true, holdMs: 0 };
  }
  const claim = idempotencyHeader === null ? null : cache.claim(idempotencyHeader);
  let answer: RecordedAnswer;
  let written: RecordedAnswer;
  let slowMs = 0;
  let announce = () => {};
  try {
    const request = {
      billingKey,
      idempotencyKey: idempotencyHeader,
      raw,
      now: wholeSeconds(new Date()),
      receiptBaseUrl: context.receiptBaseUrl(),
    };
    const decision = chargeBillingKey(request, context.store, context.rejections, context.mishaps);
    slowMs = takeFirstChargeDelay(context, billingKey);
    // A slow card's provider has not finished either: its webhook comes with the late answer.
    if (slowMs > 0) announce = () => context.onCharge(decision.charge);
    else context.onCharge(decision.charge);
    answer = answerOf(decision.status, decision.body);
    // A lost answer: the charge stands (and a replay of the key tells it), this request hears otherwise.
    const lost = decision.lostAnswer;
    written = lost ? answerOf(lost.status, { code: lost.code, message: lost.message }) : answer;
  } catch (error) {
    if (!(error instanceof ProviderHttpError) || error instanceof TemporaryProviderError) {
      claim?.release();
      throw error;
    }
    answer = errorAnswer(error);
    written = answer;
  }
  // The key stays "processing" while the answer is held, so a retry meanwhile gets a 409.
  return {
    answer: written,
    replayed: false,
    holdMs: Math.max(slowMs, context.chargeDelayMs()),
    settle: () => {
      claim?.complete(answer);
      announce();
    },
  };
}

/** The delay the billing key holds for its next charge, used up by this one. */
function takeFirstChargeDelay(context: ProviderRequestContext, billingKey: string): number {
  const record = context.store.billingKeys.get(billingKey);
  const delay = record?.firstChargeDelayMs ?? 0;
  if (record) delete record.firstChargeDelayMs;
  return delay;
}

/** A look-up's answer: the Payment object as it stands, or the provider's 404. */
function paymentAnswer(charge: StoredCharge | undefined): RecordedAnswer {
  if (!charge?.payment) throw providerError.notFoundPayment();
  return answerOf(200, charge.payment);
}

/** Authentication first, then the route; injected outages come before anything the route does. */
async function respond(
  req: IncomingMessage,
  method: string,
  path: string,
  authorization: Authorization,
  idempotencyHeader: string | null,
  context: ProviderRequestContext,
): Promise<Outcome> {
  const raw = await readBody(req);
  if (!path.startsWith('/v1/')) throw providerError.notFound();
  if (authorization !== 'ok') throw providerError.unauthorized();
  const route = matchRoute(method, path);
  if (!route) throw providerError.notFound();
  switch (route.name) {
    case 'issue': {
      const outage = context.outages.take('issue');
      if (outage) throw outage;
      return immediate(answerOf(200, issueBillingKey(raw, context.store, wholeSeconds(new Date()))));
    }
    case 'charge':
      return chargeOutcome(route.billingKey, raw, idempotencyHeader, context);
    case 'paymentByOrder':
      return immediate(paymentAnswer(context.store.paymentsByOrderId.get(route.orderId)));
    case 'payment':
      return immediate(paymentAnswer(context.store.paymentsByPaymentKey.get(route.paymentKey)));
  }
}

/** Serves one HTTP request in the provider's wire format and records it. Never rejects. */
export async function handleProviderRequest(
  req: IncomingMessage,
  res: ServerResponse,
  context: ProviderRequestContext,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const path = decodePath((req.url ?? '/').split('?')[0]);
  const authorization = checkAuthorization(firstHeader(req.headers.authorization), context.secretKey);
  const idempotencyHeader = firstHeader(req.headers['idempotency-key']);
  let outcome: Outcome;
  try {
    outcome = await respond(req, method, path, authorization, idempotencyHeader, context);
  } catch (error) {
    if (error instanceof ProviderHttpError) {
      outcome = immediate(errorAnswer(error));
    } else if (res.destroyed || context.stopping.aborted) {
      return; // the client went away or the server stopped while the body was read
    } else {
      // A bug in the fake: say so loudly rather than pass it off as a provider outage.
      const detail = error instanceof Error ? error.stack : String(error);
      process.stderr.write(`fake payment provider failed on ${method} ${path}: ${detail}\n`);
      outcome = immediate(errorAnswer(providerError.internal()));
    }
  }
  // Logged when decided, not when written: a held answer has already moved the money.
  context.requests.push({
    method,
    path,
    status: outcome.answer.status,
    idempotencyKey: idempotencyHeader,
    replayed: outcome.replayed,
    authorization,
    at: new Date(),
  });
  if (outcome.holdMs > 0) {
    await sleep(outcome.holdMs, undefined, { signal: context.stopping }).catch(() => {});
  }
  outcome.settle?.();
  if (context.stopping.aborted || res.destroyed) return;
  res.writeHead(outcome.answer.status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(outcome.answer.json);
}
