import 'reflect-metadata';
import { loadConfig } from '@lib/config';
import { runService } from '@lib/runtime';
import { AppModule } from './app.module';
import { WebhookIntakeEnv } from './webhook-intake.env';
import { WEBHOOK_PATH } from './webhooks/webhooks.controller';

/** ARCHITECTURE.md: webhook body limit 1 MiB. */
const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

void runService({
  name: 'webhook-intake',
  loadConfig: () => loadConfig(WebhookIntakeEnv),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
  rawBodyRoutes: [{ path: WEBHOOK_PATH, limitBytes: WEBHOOK_BODY_LIMIT_BYTES }],
});
