import { billingDatabase } from '../apps/billing/src/database';
import { gatewayDatabase } from '../apps/gateway/src/database';
import { licensingDatabase } from '../apps/licensing/src/database';
import { notifierDatabase } from '../apps/notifier/src/database';
import { recoveryDatabase } from '../apps/recovery/src/database';
import { webhookIntakeDatabase } from '../apps/webhook-intake/src/database';

/** Every service's schema, entities and migrations; tooling only (apps never import each other). */
export const SERVICE_DATABASES = {
  gateway: gatewayDatabase,
  recovery: recoveryDatabase,
  billing: billingDatabase,
  licensing: licensingDatabase,
  notifier: notifierDatabase,
  'webhook-intake': webhookIntakeDatabase,
};

export type ServiceName = keyof typeof SERVICE_DATABASES;
