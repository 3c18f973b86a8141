import { WebhookEvents1764200000000 } from './migrations/1764200000000-webhook-events';

export const webhookIntakeDatabase = {
  schema: 'webhook',
  entities: [],
  migrations: [WebhookEvents1764200000000],
};
