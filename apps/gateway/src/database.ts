import { Users1764500000000 } from './migrations/1764500000000-users';
import { KeyValues1764700000000 } from './migrations/1764700000000-key-values';

export const gatewayDatabase = {
  schema: 'identity',
  entities: [],
  migrations: [Users1764500000000, KeyValues1764700000000],
};
