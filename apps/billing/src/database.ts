import { Init1763800000000 } from './migrations/1763800000000-init';
import { Subscriptions1764100000000 } from './migrations/1764100000000-subscriptions';
import { SubscriptionPayerPlatformUser1764400000001 } from './migrations/1764400000001-subscription-payer-platform-user';
import { ProviderEvents1765300000000 } from './migrations/1765300000000-provider-events';
import { CancelClearsPendingDowngrade1765400000000 } from './migrations/1765400000000-cancel-clears-pending-downgrade';
import { SubscriptionsWithoutLicense1765400000001 } from './migrations/1765400000001-subscriptions-without-license';
import { OnePendingChargePerSubscription1765500000000 } from './migrations/1765500000000-one-pending-charge-per-subscription';
import { RetentionIndexes1766400000000 } from './migrations/1766400000000-retention-indexes';
import { PaymentAttemptChecks1766700000000 } from './migrations/1766700000000-payment-attempt-checks';
import { ProviderEventsUnconfirmed1766710000000 } from './migrations/1766710000000-provider-events-unconfirmed';
import { UpgradePayments1766720000000 } from './migrations/1766720000000-upgrade-payments';
import { Checkouts1766730000000 } from './migrations/1766730000000-checkouts';

export const billingDatabase = {
  schema: 'billing',
  entities: [],
  migrations: [
    Init1763800000000,
    Subscriptions1764100000000,
    SubscriptionPayerPlatformUser1764400000001,
    ProviderEvents1765300000000,
    CancelClearsPendingDowngrade1765400000000,
    SubscriptionsWithoutLicense1765400000001,
    OnePendingChargePerSubscription1765500000000,
    RetentionIndexes1766400000000,
    PaymentAttemptChecks1766700000000,
    ProviderEventsUnconfirmed1766710000000,
    UpgradePayments1766720000000,
    Checkouts1766730000000,
  ],
};
