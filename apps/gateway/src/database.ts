import { Users1764500000000 } from './migrations/1764500000000-users';

export const gatewayDatabase = {
  schema: 'identity',
  entities: [],
  migrations: [Users1764500000000],
};
