export * from './key-value-store';
export * from './key-value.module';
export * from './key-value.schema';
export * from './postgres-key-value.repository';
export * from './redis-key-value-store';
