import 'reflect-metadata';
import { loadConfig } from '@lib/config';
import { runService } from '@lib/runtime';
import { AppModule } from './app.module';
import { GatewayEnv } from './gateway.env';

void runService({
  name: 'gateway',
  loadConfig: () => loadConfig(GatewayEnv),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
});
