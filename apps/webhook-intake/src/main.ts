import 'reflect-metadata';
import { loadConfig } from '@lib/config';
import { runService } from '@lib/runtime';
import { AppModule } from './app.module';
import { WebhookIntakeEnv } from './webhook-intake.env';

void runService({
  name: 'webhook-intake',
  loadConfig: () => loadConfig(WebhookIntakeEnv),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
