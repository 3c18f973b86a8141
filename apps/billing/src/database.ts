import { Init1763800000000 } from './migrations/1763800000000-init';
import { Subscriptions1764100000000 } from './migrations/1764100000000-subscriptions';

export const billingDatabase = {
  schema: 'billing',
  entities: [],
  migrations: [Init1763800000000, Subscriptions1764100000000],
};
