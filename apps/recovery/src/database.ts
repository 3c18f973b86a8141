import { Init1763800000000 } from './migrations/1763800000000-init';

export const recoveryDatabase = {
  schema: 'recovery',
  entities: [],
  migrations: [Init1763800000000],
};
