export * from './entitlements-invalidation.listener';
export * from './entitlements.client';
export * from './entitlements.errors';
export * from './entitlements.module';
