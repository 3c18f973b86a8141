export * from './identity.module';
export * from './internal-auth.guard';
export * from './internal-token';
export * from './internal-http';
export * from './internal-keys';
