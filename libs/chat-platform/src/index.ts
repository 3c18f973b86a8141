export * from './bot-permissions';
export * from './chat-platform-error';
export * from './chat-platform.client';
export * from './guild-automod';
export * from './guild-expressions';
export * from './guild-onboarding';
export * from './guild-limits';
export * from './guild-state';
export * from './guild-webhooks';
// The gateway's events carry the same objects as REST answers: live sync maps them with these.
export {
  type WireGuildChannel,
  sortByPosition,
  toAuditLogEntry,
  toGuildSettings,
  toGuildState,
  toPermissionOverrides,
  toPlatformChannel,
  toPlatformRole,
} from './guild-state.mapper';
export * from './permissions';
export * from './platform-failure.mapper';
export * from './shards';
export * from './write-inputs';
