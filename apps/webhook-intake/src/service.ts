import { loadConfig } from '@lib/config';
import { defineService } from '@lib/runtime';
import { AppModule } from './app.module';
import { WebhookIntakeEnv } from './webhook-intake.env';
import { WEBHOOK_PATH } from './webhooks/webhooks.controller';

/** ARCHITECTURE.md: webhook body limit 1 MiB. */
const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

/** How the webhook-intake service is assembled: alone (main.ts) or in standalone mode. */
export const webhookIntakeService = defineService({
  name: 'webhook-intake',
  loadConfig: (env) => loadConfig(WebhookIntakeEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
  rawBodyRoutes: [{ path: WEBHOOK_PATH, limitBytes: WEBHOOK_BODY_LIMIT_BYTES }],
});
