import { Init1763800000000 } from './migrations/1763800000000-init';

export const licensingDatabase = {
  schema: 'licensing',
  entities: [],
  migrations: [Init1763800000000],
};
