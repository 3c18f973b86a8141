import { loadConfig } from '@lib/config';
import { defineService } from '@lib/runtime';
import { AppModule } from './app.module';
import { BillingEnv } from './billing.env';

/** How the billing service is assembled: alone (main.ts) or in standalone mode. */
export const billingService = defineService({
  name: 'billing',
  loadConfig: (env) => loadConfig(BillingEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
