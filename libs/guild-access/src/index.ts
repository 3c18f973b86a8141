export * from './guild-access.client';
export * from './guild-access.module';
export * from './guild-scope';
export * from './manage-guild';
export * from './guild-access.errors';
