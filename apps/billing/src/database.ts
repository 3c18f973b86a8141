import { Init1763800000000 } from './migrations/1763800000000-init';
import { Subscriptions1764100000000 } from './migrations/1764100000000-subscriptions';
import { SubscriptionPayerPlatformUser1764400000001 } from './migrations/1764400000001-subscription-payer-platform-user';

export const billingDatabase = {
  schema: 'billing',
  entities: [],
  migrations: [Init1763800000000, Subscriptions1764100000000, SubscriptionPayerPlatformUser1764400000001],
};
