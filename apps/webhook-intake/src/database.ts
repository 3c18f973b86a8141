import { WebhookEvents1764200000000 } from './migrations/1764200000000-webhook-events';
import { WebhookDuplicateOfIndex1764300000000 } from './migrations/1764300000000-webhook-duplicate-of-index';
import { KeyValues1764700000001 } from './migrations/1764700000001-key-values';

export const webhookIntakeDatabase = {
  schema: 'webhook',
  entities: [],
  migrations: [WebhookEvents1764200000000, WebhookDuplicateOfIndex1764300000000, KeyValues1764700000001],
};
