export type { AuditLogChange, FakeAuditLogEntry } from './audit-log';
export { DEMO_CROWD_SIZE, demoGuildSpec } from './demo-guild';
export type { FailureRule } from './failure-injector';
export type { ExpressionImage } from './expression-images';
export {
  FakeChatPlatform,
  type ExpressionSeed,
  type FakeChatPlatformOptions,
  type FakePlatformState,
} from './fake-chat-platform';
export type {
  IdentifyAttempt,
  IdentifyRefusal,
  ShardingSettings,
  ShardOverlap,
} from './gateway/gateway-limits';
export type { GatewayConnectionInfo } from './gateway/gateway-server';
export {
  DEFAULT_EVERYONE_PERMISSIONS,
  banSpecs,
  memberSpecs,
  type BanSpec,
  type CategorySpec,
  type ChannelSpec,
  type EmojiSpec,
  type GuildSpec,
  type MemberSpec,
  type OverwriteSpec,
  type RoleSpec,
  type SeededGuild,
  type StickerSpec,
} from './guild-seed';
export type {
  AutoModActionSpec,
  AutoModRuleSpec,
  GuildSetupSpec,
  OnboardingSpec,
  SeededSetup,
  WebhookSpec,
  WelcomeScreenSpec,
} from './guild-setup-seed';
export type { InteractionsEndpoint, SlashCommand } from './interaction-delivery';
export {
  INTERACTION_RESPONSE_DEADLINE_MS,
  INTERACTION_TOKEN_LIFETIME_MS,
  type InitialResponse,
  type InteractionEdit,
  type InteractionRecord,
  type OriginalMessage,
} from './interactions';
export type { OAuthApp } from './oauth-store';
export type {
  DmRecord,
  FakeChannel,
  FakeGuild,
  FakeGuildSettings,
  FakeMember,
  FakeOverwrite,
  FakeRole,
  FakeUser,
  RequestRecord,
} from './platform-state';
export { DEFAULT_RATE_LIMITS, type RateLimitSettings, type RateLimitWindow } from './rate-limiter';
