import { type DynamicModule, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createServiceDataSource, runServiceMigrations, type ServiceDatabaseOptions } from './data-source';

export interface DatabaseModuleOptions extends ServiceDatabaseOptions {
  migrateOnStart: boolean;
}

const OPTIONS = Symbol('DatabaseModuleOptions');

@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseModule.name);

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  static forService(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        { provide: OPTIONS, useValue: options },
        {
          provide: DataSource,
          inject: [OPTIONS],
          useFactory: async (opts: DatabaseModuleOptions) => {
            const dataSource = createServiceDataSource(opts);
            await dataSource.initialize();
            if (opts.migrateOnStart) {
              const applied = await runServiceMigrations(dataSource, opts.schema);
              if (applied.length) new Logger(DatabaseModule.name).log({ applied }, 'migrations applied');
            }
            return dataSource;
          },
        },
      ],
      exports: [DataSource],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.dataSource.destroy();
      this.logger.log('database pool closed');
    }
  }
}
