import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { PROVIDER_SIGNATURE_HEADER } from '@lib/contracts';
import { PublicRoute } from '@lib/identity';
import { DomainError } from '@lib/problem-details';
import type { RawBodyRequest } from '@lib/runtime';
import { type IntakeOutcome, WebhookIntakeService } from './webhook-intake.service';

export const WEBHOOK_PATH = '/webhooks/provider';

/** Spec §4.9: the provider calls this directly; the signature is its only authentication. */
@Controller()
export class WebhooksController {
  constructor(private readonly intake: WebhookIntakeService) {}

  @Post(WEBHOOK_PATH)
  @PublicRoute()
  @HttpCode(200)
  async receive(@Req() request: RawBodyRequest): Promise<void> {
    const header = request.headers[PROVIDER_SIGNATURE_HEADER];
    const outcome = await this.intake.receive({
      rawBody: request.rawBody,
      bodyBytes: request.rawBodyBytes ?? 0,
      signature: Array.isArray(header) ? header[0] : header,
    });
    throwUnlessAccepted(outcome);
  }
}

/** Accepted and duplicate events get 200 with no content; everything else a problem body. */
export function throwUnlessAccepted(outcome: IntakeOutcome): void {
  switch (outcome.kind) {
    case 'accepted':
    case 'duplicate':
      return;
    case 'invalid_signature':
      throw new DomainError('ErrInvalidSignature', 401, 'Invalid signature', outcome.detail);
    case 'unparseable':
      throw new DomainError('ErrUnparseableWebhook', 400, 'Webhook body not understood', outcome.detail);
    case 'too_large':
      throw new DomainError('ErrPayloadTooLarge', 413, 'Request body too large', outcome.detail);
    case 'refused':
      throw new DomainError('ErrWebhookRefused', 422, 'Webhook refused', outcome.detail);
    case 'routing_failed':
      // 500 asks the provider to resend (spec §4.9 step 5).
      throw new DomainError('ErrWebhookRoutingFailed', 500, 'Webhook not processed', outcome.detail);
  }
}
