import { type DynamicModule, Module } from '@nestjs/common';
import { InternalTokenCodec } from '@lib/identity';
import { retentionSweepProvider } from '@lib/runtime';
import { AdminTokenDigests, AdminTokenGuard } from './admin/admin-token.guard';
import { WebhookEventsController } from './admin/webhook-events.controller';
import { BillingRouter } from './webhooks/billing-router';
import { WebhookEventsRepository } from './webhooks/webhook-events.repository';
import { webhookEventsRetention } from './webhooks/webhook-events-retention';
import { WebhookEndpoint } from './webhooks/webhook-endpoint';
import { WebhookIdempotency } from './webhooks/webhook-idempotency';
import { WebhookIntakeService } from './webhooks/webhook-intake.service';
import { WebhookRateLimiter } from './webhooks/webhook-rate-limit';
import type { WebhookIntakeEnv } from './webhook-intake.env';
import type { WebhookVerification } from './webhooks/webhook-intake.service';

/** The provider's webhook endpoint, the operator tools over what it recorded, and its retention. */
@Module({})
export class WebhookIntakeModule {
  static forRoot(config: WebhookIntakeEnv): DynamicModule {
    return {
      module: WebhookIntakeModule,
      controllers: [WebhookEventsController],
      providers: [
        WebhookIdempotency,
        {
          provide: BillingRouter,
          inject: [InternalTokenCodec],
          useFactory: (codec: InternalTokenCodec) => new BillingRouter(config.BILLING_URL, codec),
        },
        { provide: AdminTokenDigests, useValue: new AdminTokenDigests(config.ADMIN_TOKEN_SHA256) },
        AdminTokenGuard,
        WebhookEventsRepository,
        {
          provide: WebhookRateLimiter,
          useValue: new WebhookRateLimiter(config.WEBHOOK_RATE_LIMIT_PER_MINUTE, config.TRUST_PROXY_HOPS),
        },
        WebhookEndpoint,
        retentionSweepProvider(
          { name: 'webhook-intake-retention', cron: config.WEBHOOK_EVENTS_RETENTION_CRON },
          (dataSource) =>
            webhookEventsRetention(
              new WebhookEventsRepository(dataSource),
              config.WEBHOOK_EVENTS_RETENTION_DAYS,
            ),
        ),
        {
          provide: WebhookIntakeService,
          inject: [WebhookEventsRepository, WebhookIdempotency, BillingRouter],
          useFactory: (
            events: WebhookEventsRepository,
            idempotency: WebhookIdempotency,
            router: BillingRouter,
          ) => new WebhookIntakeService(events, idempotency, router, webhookVerification(config)),
        },
      ],
    };
  }
}

/** The deployment's way of believing a delivery; the env's validation made the secret present for `signature`. */
function webhookVerification(config: WebhookIntakeEnv): WebhookVerification {
  if (config.PROVIDER_WEBHOOK_VERIFICATION === 'lookup') return { mode: 'lookup' };
  if (!config.WEBHOOK_SECRET)
    throw new Error('WEBHOOK_SECRET is required with PROVIDER_WEBHOOK_VERIFICATION=signature');
  return { mode: 'signature', secret: config.WEBHOOK_SECRET };
}
