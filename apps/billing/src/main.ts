import 'reflect-metadata';
import { loadConfig } from '@lib/config';
import { runService } from '@lib/runtime';
import { AppModule } from './app.module';
import { BillingEnv } from './billing.env';

void runService({
  name: 'billing',
  loadConfig: () => loadConfig(BillingEnv),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
