import 'reflect-metadata';
import { loadConfig } from '@lib/config';
import { runService } from '@lib/runtime';
import { AppModule } from './app.module';
import { RecoveryEnv } from './recovery.env';

void runService({
  name: 'recovery',
  loadConfig: () => loadConfig(RecoveryEnv),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
