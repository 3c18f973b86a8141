/** The identity schema; its tables arrive with the features that need them. */
export const gatewayDatabase = {
  schema: 'identity',
  entities: [],
  migrations: [],
};
