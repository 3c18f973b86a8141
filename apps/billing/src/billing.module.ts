import { type DynamicModule, Module } from '@nestjs/common';
import { retentionSweepProvider } from '@lib/runtime';
import type { BillingEnv } from './billing.env';
import { BillingSettings } from './billing-settings';
import { billingRetention } from './billing-retention';
import { BillingKeyCipher } from './billing-keys/billing-key-cipher';
import { BillingKeysRepository } from './billing-keys/billing-keys.repository';
import { CheckoutController } from './checkout/checkout.controller';
import { CheckoutService } from './checkout/checkout.service';
import { CheckoutsRepository } from './checkout/checkouts.repository';
import { SubscriptionJobsService } from './jobs/subscription-jobs.service';
import { PaymentAttemptsRepository } from './payments/payment-attempts.repository';
import { PaymentsService } from './payments/payments.service';
import { ProviderEventsController } from './provider-events/provider-events.controller';
import { ProviderEventsService } from './provider-events/provider-events.service';
import { PaymentProviderClient } from './provider/payment-provider.client';
import { PlanChangeService } from './subscriptions/plan-change.service';
import { SubscriptionEvents } from './subscriptions/subscription-events';
import { SubscriptionsController } from './subscriptions/subscriptions.controller';
import { SubscriptionsRepository } from './subscriptions/subscriptions.repository';
import { SubscriptionsService } from './subscriptions/subscriptions.service';

/** Checkout, subscriptions, payments, provider webhooks, the subscription jobs and billing's retention. */
@Module({})
export class BillingModule {
  static forRoot(config: BillingEnv): DynamicModule {
    return {
      module: BillingModule,
      controllers: [CheckoutController, SubscriptionsController, ProviderEventsController],
      providers: [
        {
          provide: BillingSettings,
          useValue: new BillingSettings(
            config.PROVIDER_CLIENT_KEY,
            config.SERVICE_DISPLAY_NAME,
            config.BILLING_JOBS_ENABLED,
            config.BILLING_JOBS_INTERVAL_MS,
            config.PAYMENT_RECONCILE_AFTER_MS,
            config.PROVIDER_SDK_URL,
            config.PAYMENT_CHECK_MAX_INTERVAL_MS,
            config.PAYMENT_UNSETTLED_ALERT_AFTER_MS,
            config.CHECKOUT_TTL_MINUTES * 60_000,
          ),
        },
        {
          provide: BillingKeyCipher,
          useFactory: () =>
            new BillingKeyCipher(BillingKeyCipher.parseKey(config.BILLING_KEY_ENCRYPTION_KEY)),
        },
        {
          provide: PaymentProviderClient,
          useFactory: () =>
            new PaymentProviderClient({
              baseUrl: config.PROVIDER_API_URL,
              secretKey: config.PROVIDER_SECRET_KEY,
              timeoutMs: config.PROVIDER_TIMEOUT_MS,
            }),
        },
        BillingKeysRepository,
        SubscriptionsRepository,
        PaymentAttemptsRepository,
        SubscriptionEvents,
        PaymentsService,
        CheckoutService,
        CheckoutsRepository,
        PlanChangeService,
        SubscriptionsService,
        ProviderEventsService,
        SubscriptionJobsService,
        retentionSweepProvider({ name: 'billing-retention', cron: config.RETENTION_CRON }, (dataSource) =>
          billingRetention(dataSource, config),
        ),
      ],
    };
  }
}
