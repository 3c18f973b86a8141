export * from './base.env';
export * from './load-config';
export * from './internal-keys';
export * from './setting-decorators';
