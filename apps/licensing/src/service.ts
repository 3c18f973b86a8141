import { loadConfig } from '@lib/config';
import { defineService } from '@lib/runtime';
import { AppModule } from './app.module';
import { LicensingEnv } from './licensing.env';

/** How the licensing service is assembled: alone (main.ts) or in standalone mode. */
export const licensingService = defineService({
  name: 'licensing',
  loadConfig: (env) => loadConfig(LicensingEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
