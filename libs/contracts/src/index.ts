export * from './envelope';
export * from './events';
export * from './identity';
export * from './plans';
export * from './topics';
