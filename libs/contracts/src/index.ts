export * from './envelope';
export * from './guild-access';
export * from './events';
export * from './identity';
export * from './kafka-access';
export * from './plans';
export * from './topics';
export * from './provider';
