export * from './data-source';
export * from './database.module';
