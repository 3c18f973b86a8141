import { loadConfig } from '@lib/config';
import { defineService } from '@lib/runtime';
import { AppModule } from './app.module';
import { NotifierEnv } from './notifier.env';

/** How the notifier service is assembled: alone (main.ts) or in standalone mode. */
export const notifierService = defineService({
  name: 'notifier',
  loadConfig: (env) => loadConfig(NotifierEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
