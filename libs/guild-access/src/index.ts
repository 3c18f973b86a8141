export * from './guild-access.client';
export * from './guild-access.module';
export * from './manage-guild';
