export * from './bootstrap';
export * from './health.module';
export * from './logging.module';
export * from './request-context';
export * from './validation.pipe';
export * from './metrics.module';
export * from './ttl-cache';
export * from './raw-body';
