import { Init1763800000000 } from './migrations/1763800000000-init';

export const billingDatabase = {
  schema: 'billing',
  entities: [],
  migrations: [Init1763800000000],
};
