import { WebhookEvents1764200000000 } from './migrations/1764200000000-webhook-events';
import { WebhookDuplicateOfIndex1764300000000 } from './migrations/1764300000000-webhook-duplicate-of-index';
import { KeyValues1764700000001 } from './migrations/1764700000001-key-values';
import { WebhookBodyDigest1765100000000 } from './migrations/1765100000000-webhook-body-digest';
import { WebhookRetentionIndex1765100000001 } from './migrations/1765100000001-webhook-retention-index';
import { WebhookDeliveryRows1765300000000 } from './migrations/1765300000000-webhook-delivery-rows';
import { WebhookLiveRowIndex1765300000001 } from './migrations/1765300000001-webhook-live-row-index';
import { WebhookGrowthIndexes1766600000000 } from './migrations/1766600000000-growth-indexes';

export const webhookIntakeDatabase = {
  schema: 'webhook',
  entities: [],
  migrations: [
    WebhookEvents1764200000000,
    WebhookDuplicateOfIndex1764300000000,
    KeyValues1764700000001,
    WebhookBodyDigest1765100000000,
    WebhookRetentionIndex1765100000001,
    WebhookDeliveryRows1765300000000,
    WebhookLiveRowIndex1765300000001,
    WebhookGrowthIndexes1766600000000,
  ],
};
