import { loadConfig } from '@lib/config';
import { defineService } from '@lib/runtime';
import { AppModule } from './app.module';
import { WebhookIntakeEnv } from './webhook-intake.env';
import { WebhookEndpoint } from './webhooks/webhook-endpoint';

/** How the webhook-intake service is assembled: alone (main.ts) or in standalone mode. */
export const webhookIntakeService = defineService({
  name: 'webhook-intake',
  loadConfig: (env) => loadConfig(WebhookIntakeEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
  plainRoutes: (app) => [app.get(WebhookEndpoint).route()],
});
