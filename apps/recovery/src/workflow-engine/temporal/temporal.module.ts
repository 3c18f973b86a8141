import { type BeforeApplicationShutdown, type DynamicModule, Inject, Module } from '@nestjs/common';
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

/** Readiness: the frontend answers (an open port is not readiness). */
export async function checkTemporal(connection: Connection): Promise<void> {
  await connection.workflowService.getSystemInfo({});
}

/** The workflow-engine client of the recovery API (start, signal, query restore workflows). */
@Module({})
export class TemporalModule implements BeforeApplicationShutdown {
  constructor(@Inject(Connection) private readonly connection: Connection) {}

  static forRoot(options: TemporalOptions): DynamicModule {
    return {
      module: TemporalModule,
      global: true,
      providers: [
        { provide: TEMPORAL_OPTIONS, useValue: options },
        // Lazy: the API starts (and reports not-ready) while Temporal is still coming up.
        { provide: Connection, useFactory: () => Connection.lazy({ address: options.address }) },
        {
          provide: Client,
          inject: [Connection],
          useFactory: (connection: Connection) => new Client({ connection, namespace: options.namespace }),
        },
      ],
      exports: [Connection, Client, TEMPORAL_OPTIONS],
    };
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.connection.close();
  }
}
