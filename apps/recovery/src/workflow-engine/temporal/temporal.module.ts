import {
  type BeforeApplicationShutdown,
  ConfigurableModuleBuilder,
  Global,
  Inject,
  Module,
} from '@nestjs/common';
import { Client, Connection } from '@temporalio/client';

export const TEMPORAL_OPTIONS = Symbol('TEMPORAL_OPTIONS');

export interface TemporalOptions {
  address: string;
  namespace: string;
  /** Where restore workflows are started and polled (one queue per deployment, or per test run). */
  taskQueue: string;
  /** A prebuilt workflow bundle for the worker; unset: the worker bundles the sources at start. */
  workflowBundlePath?: string;
}

/** `TemporalModule.forRoot(options)`: Nest's configurable-module builder writes it. */
const { ConfigurableModuleClass } = new ConfigurableModuleBuilder<TemporalOptions>({
  optionsInjectionToken: TEMPORAL_OPTIONS,
})
  .setClassMethodName('forRoot')
  .build();

/** Readiness: the frontend answers (an open port is not readiness). */
export async function checkTemporal(connection: Connection): Promise<void> {
  await connection.workflowService.getSystemInfo({});
}

/** The workflow-engine client of the recovery API (start, signal, query restore workflows). */
@Global()
@Module({
  providers: [
    // Lazy: the API starts (and reports not-ready) while Temporal is still coming up.
    {
      provide: Connection,
      inject: [TEMPORAL_OPTIONS],
      useFactory: (options: TemporalOptions) => Connection.lazy({ address: options.address }),
    },
    {
      provide: Client,
      inject: [Connection, TEMPORAL_OPTIONS],
      useFactory: (connection: Connection, options: TemporalOptions) =>
        new Client({ connection, namespace: options.namespace }),
    },
  ],
  exports: [Connection, Client, TEMPORAL_OPTIONS],
})
export class TemporalModule extends ConfigurableModuleClass implements BeforeApplicationShutdown {
  constructor(@Inject(Connection) private readonly connection: Connection) {
    super();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.connection.close();
  }
}
