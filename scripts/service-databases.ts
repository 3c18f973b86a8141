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

/** The variable naming a service's own database login for the migration job: `WEBHOOK_INTAKE_DATABASE_URL`. */
export function serviceDatabaseUrlVariable(service: ServiceName): string {
  return `${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;
}

/** The URL of `service`'s own login on the server and database of `adminUrl`: role `guildkeeper_<service>`. */
export function serviceLoginUrl(adminUrl: string, service: ServiceName, password: string): string {
  const url = new URL(adminUrl);
  url.username = `guildkeeper_${service.replace(/-/g, '_')}`;
  url.password = password;
  return url.toString();
}
