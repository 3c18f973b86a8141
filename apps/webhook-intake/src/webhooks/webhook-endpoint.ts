import { Injectable, Logger } from '@nestjs/common';
import { PROVIDER_SIGNATURE_HEADER } from '@lib/contracts';
import { CommonErrors, DomainError, sendProblem, toProblem } from '@lib/problem-details';
import {
  captureRawBody,
  closeWithoutReading,
  type PlainRoute,
  type RawBodyRequest,
  requestIdFor,
  runWithRequestId,
} from '@lib/runtime';
import type { ServerResponse } from 'node:http';
import type { IntakeOutcome } from './webhook-intake.service';
import { WebhookIntakeService } from './webhook-intake.service';
import { WebhookRateLimiter } from './webhook-rate-limit';
import { WebhookErrors } from './webhooks.errors';

export const WEBHOOK_PATH = '/webhooks/provider';
/** docs/decisions/webhook-signature.md: webhook body limit 1 MiB. */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * docs/behaviour.md §4.9: `POST /webhooks/provider`. The provider calls it directly; the signature is its only
 * authentication, so no guard, pipe or interceptor of Nest's has anything to do here.
 *
 * It is a plain route served ahead of Express and Nest (`PlainRoute`), not a controller: at the
 * provider's rate, Nest's routing and exception zone and Express's middleware chain were about a
 * fifth of the endpoint's CPU in `npm run bench:webhook`. It keeps what they gave it: the raw bytes
 * up to the 1 MiB limit (the same capture as before), the request id (the caller's or a new one, sent
 * back, carried to billing and into the logs), the route's HTTP metrics, and problem bodies rendered
 * by the same `toProblem` as every other route. The operator tools stay Nest controllers.
 *
 * Before anything is read or recorded, a request goes through the per-address rate limit; a body
 * over the limit is refused by the capture itself. Neither is recorded: only a request whose body
 * was read becomes a row.
 */
@Injectable()
export class WebhookEndpoint {
  private readonly logger = new Logger(WebhookEndpoint.name);
  private readonly captureBody = captureRawBody(WEBHOOK_BODY_LIMIT_BYTES);

  constructor(
    private readonly intake: WebhookIntakeService,
    private readonly rateLimiter: WebhookRateLimiter,
  ) {}

  route(): PlainRoute {
    return { method: 'POST', path: WEBHOOK_PATH, handle: this.handle };
  }

  private readonly handle = (req: RawBodyRequest, res: ServerResponse): void => {
    const requestId = requestIdFor(req, res);
    const retryAfterS = this.rateLimiter.admit(req);
    if (retryAfterS !== null) return this.refuseRateLimited(req, res, requestId, retryAfterS);
    this.captureBody(req, res, (error?: unknown) => {
      // The client went away mid-body: there is no one to answer.
      if (error) return void res.destroy();
      runWithRequestId(requestId, () => {
        this.receive(req).then(
          (refusal) => (refusal ? this.fail(req, res, requestId, refusal) : res.writeHead(200).end()),
          (failure: unknown) => this.fail(req, res, requestId, failure),
        );
      });
    });
  };

  private async receive(req: RawBodyRequest): Promise<DomainError | null> {
    // The capture hands on a POST only with its body read, and within the limit.
    if (!req.rawBody) throw new Error('the raw-body capture passed on a request without its body');
    const header = req.headers[PROVIDER_SIGNATURE_HEADER];
    const outcome = await this.intake.receive({
      rawBody: req.rawBody,
      signature: Array.isArray(header) ? header[0] : header,
    });
    return outcomeError(outcome);
  }

  /** The body, if any, is left unread, and the connection closes after the answer. */
  private refuseRateLimited(
    req: RawBodyRequest,
    res: ServerResponse,
    requestId: string,
    retryAfterS: number,
  ): void {
    res.setHeader('retry-after', String(retryAfterS));
    closeWithoutReading(req, res);
    const limit = this.rateLimiter.perMinute;
    const error = CommonErrors.rateLimited(
      `More than ${limit} webhook requests a minute from this address. Try again in ${retryAfterS} s.`,
      { retry_after: retryAfterS },
    );
    sendProblem(res, toProblem(error, requestId, req.url));
  }

  private fail(req: RawBodyRequest, res: ServerResponse, requestId: string, error: unknown): void {
    const problem = toProblem(error, requestId, req.url);
    if (problem.status >= 500 && !(error instanceof DomainError)) {
      this.logger.error({ err: error, request_id: requestId }, 'webhook request failed');
    }
    sendProblem(res, problem);
  }
}

/**
 * Accepted and duplicate events are answered 200 with no content; every other outcome is the error
 * its problem body says. Routing that failed is 500, so that the provider resends (docs/behaviour.md §4.9 step 5,
 * §7), whether billing could not be reached or refused the event's data: a refusal is a routing
 * failure too, and its code tells it apart.
 */
export function outcomeError(outcome: Extract<IntakeOutcome, { detail: string }>): DomainError;
export function outcomeError(outcome: IntakeOutcome): DomainError | null;
export function outcomeError(outcome: IntakeOutcome): DomainError | null {
  switch (outcome.kind) {
    case 'accepted':
    case 'duplicate':
      return null;
    case 'invalid_signature':
      return WebhookErrors.invalidSignature(outcome.detail);
    case 'unparseable':
      return WebhookErrors.unparseable(outcome.detail);
    case 'refused':
      return WebhookErrors.refused(outcome.detail);
    case 'routing_failed':
      return WebhookErrors.routingFailed(outcome.detail);
  }
}
