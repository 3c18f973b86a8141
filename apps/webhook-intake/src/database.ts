/** The webhook schema; its tables arrive with the features that need them. */
export const webhookIntakeDatabase = {
  schema: 'webhook',
  entities: [],
  migrations: [],
};
