import { type DynamicModule, Module } from '@nestjs/common';
import { InternalTokenCodec } from '@lib/identity';
import { AdminTokenDigests, AdminTokenGuard } from './admin/admin-token.guard';
import { WebhookEventsController } from './admin/webhook-events.controller';
import { BillingRouter } from './webhooks/billing-router';
import { WebhookEventsRepository } from './webhooks/webhook-events.repository';
import { WebhookEndpoint } from './webhooks/webhook-endpoint';
import { WebhookIdempotency } from './webhooks/webhook-idempotency';
import { WebhookIntakeService } from './webhooks/webhook-intake.service';
import type { WebhookIntakeEnv } from './webhook-intake.env';

/** The provider's webhook endpoint and the operator tools over what it recorded. */
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
        WebhookEndpoint,
        {
          provide: WebhookIntakeService,
          inject: [WebhookEventsRepository, WebhookIdempotency, BillingRouter],
          useFactory: (
            events: WebhookEventsRepository,
            idempotency: WebhookIdempotency,
            router: BillingRouter,
          ) => new WebhookIntakeService(events, idempotency, router, config.WEBHOOK_SECRET),
        },
      ],
    };
  }
}
