import { loadConfig } from '@lib/config';
import { defineService } from '@lib/runtime';
import { AppModule } from './app.module';
import { RecoveryEnv } from './recovery.env';

/** How the recovery service is assembled: alone (main.ts) or in standalone mode. */
export const recoveryService = defineService({
  name: 'recovery',
  loadConfig: (env) => loadConfig(RecoveryEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
