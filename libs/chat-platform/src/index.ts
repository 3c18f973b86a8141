export * from './chat-platform-error';
export * from './chat-platform.client';
export * from './guild-state';
export * from './permissions';
export * from './platform-failure.mapper';
export * from './write-inputs';
