import 'reflect-metadata';
import { loadConfig } from '@lib/config';
import { runService } from '@lib/runtime';
import { AppModule } from './app.module';
import { LicensingEnv } from './licensing.env';

void runService({
  name: 'licensing',
  loadConfig: () => loadConfig(LicensingEnv),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
