export * from './base.env';
export * from './load-config';
