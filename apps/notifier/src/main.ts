import 'reflect-metadata';
import { loadConfig } from '@lib/config';
import { runService } from '@lib/runtime';
import { AppModule } from './app.module';
import { NotifierEnv } from './notifier.env';

void runService({
  name: 'notifier',
  loadConfig: () => loadConfig(NotifierEnv),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
