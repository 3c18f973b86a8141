import {
  ConfigurableModuleBuilder,
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createServiceDataSource, runServiceMigrations, type ServiceDatabaseOptions } from './data-source';

export interface DatabaseModuleOptions extends ServiceDatabaseOptions {
  migrateOnStart: boolean;
}

/** `DatabaseModule.forService(options)`: Nest's configurable-module builder writes it. */
const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN: OPTIONS } =
  new ConfigurableModuleBuilder<DatabaseModuleOptions>().setClassMethodName('forService').build();

/** Opens the service's database at start, migrating it first when the app is asked to. */
async function openDatabase(options: DatabaseModuleOptions): Promise<DataSource> {
  const dataSource = createServiceDataSource(options);
  await dataSource.initialize();
  if (options.migrateOnStart) {
    const applied = await runServiceMigrations(dataSource, options.schema);
    if (applied.length) new Logger(DatabaseModule.name).log({ applied }, 'migrations applied');
  }
  return dataSource;
}

/** Provides the service's DataSource everywhere in the app, and closes its pool at shutdown. */
@Global()
@Module({
  providers: [{ provide: DataSource, inject: [OPTIONS], useFactory: openDatabase }],
  exports: [DataSource],
})
export class DatabaseModule extends ConfigurableModuleClass implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseModule.name);

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    super();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.dataSource.destroy();
      this.logger.log('database pool closed');
    }
  }
}
