export * from './data-source';
export * from './database.module';
export * from './keyset-cursor';
export * from './service-role';
export * from './statement-migration';
export * from './keyset-query';
export * from './entity-columns';
export * from './first-row';
