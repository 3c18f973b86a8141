import { AuditLogs } from './audit-log';
import { BoundedLog } from './bounded-log';
import { GatewayLimits } from './gateway/gateway-limits';
import { type FakeWebhook, GuildExpressions } from './guild-expressions';
import { GuildImages } from './guild-images';
import { InteractionStore } from './interactions';
import { OAuthStore } from './oauth-store';
import { platformError } from './platform-error';
import type { DmRecord, FakeChannel, FakeGuild, FakeMember, FakeRole, FakeUser } from './platform-state';
import { SnowflakeGenerator } from './snowflake';
import { AutoModRules } from './automod-rules';
import { WebhookAvatars } from './webhook-avatars';
import { WelcomeFlows } from './welcome-flow';

/** How long the platform remembers a message's nonce for `enforce_nonce` ("the past few minutes"). */
export const NONCE_WINDOW_MS = 5 * 60_000;

/**
 * Everything the fake platform knows, in memory. Lookups answer the platform's errors, so route
 * handlers read as the platform's rules. Handlers run synchronously, so each request is atomic.
 */
export class PlatformStore {
  readonly ids = new SnowflakeGenerator();
  readonly guilds = new Map<string, FakeGuild>();
  readonly users = new Map<string, FakeUser>();
  readonly dmsClosed = new Set<string>();
  readonly dmLog: BoundedLog<DmRecord>;
  readonly oauth = new OAuthStore();
  /** Interactions delivered to the application's endpoint, and their tokens. */
  readonly interactions = new InteractionStore(() => this.ids.next());
  readonly auditLogs: AuditLogs;
  /** Sharding figures, session starts and refused IDENTIFYs. */
  readonly gatewayLimits: GatewayLimits;
  /** Banned user ids and the ban's reason, by guild. */
  readonly bans = new Map<string, Map<string, string | null>>();
  /** Each guild's custom emojis and stickers, and its vanity URL code (parts the guild object leaves to its own routes). */
  readonly expressions = new GuildExpressions();
  /** The bytes behind each guild's icon, banner and splashes and its roles' icons, for the CDN. */
  readonly images = new GuildImages();
  /** Webhooks by id. */
  readonly webhooks = new Map<string, FakeWebhook>();
  /**
   * Bot accounts whose application has the privileged GUILD_MEMBERS intent turned off (it is on
   * for every other): the platform then refuses them the member list.
   */
  readonly withoutMembersIntent = new Set<string>();
  /** Each guild's AutoMod rules. */
  readonly autoModRules = new AutoModRules();
  /** Each webhook's avatar image, served by the CDN. */
  readonly webhookAvatars = new WebhookAvatars();
  /** Each guild's welcome screen and onboarding flow. */
  readonly welcomeFlows = new WelcomeFlows();
  /** Where the gateway listens (`ws://host:port/gateway`) while the server runs. */
  gatewayUrl?: string;
  private readonly dmRecipientByChannel = new Map<string, string>();
  private readonly dmChannelByRecipient = new Map<string, string>();
  /** The bot's messages sent with a nonce, by channel and nonce, oldest first. */
  private readonly dmByNonce = new Map<string, DmRecord>();

  readonly bot: FakeUser;

  constructor(bot: { id?: string; username: string }, logCapacity: number) {
    this.bot = { id: bot.id ?? this.ids.next(), username: bot.username, global_name: null, bot: true };
    this.dmLog = new BoundedLog(logCapacity);
    this.auditLogs = new AuditLogs(logCapacity);
    this.gatewayLimits = new GatewayLimits(logCapacity);
    this.users.set(this.bot.id, this.bot);
  }

  /** The user with this id, created on first use (tests may choose ids to match their fixtures). */
  ensureUser(id: string | undefined, username: string): FakeUser {
    const existing = id === undefined ? undefined : this.users.get(id);
    if (existing) return existing;
    const user: FakeUser = { id: id ?? this.ids.next(), username, global_name: null, bot: false };
    this.users.set(user.id, user);
    return user;
  }

  user(id: string): FakeUser {
    const user = this.users.get(id);
    if (!user) throw platformError.unknownUser();
    return user;
  }

  /**
   * A guild the bot (or the given bot account) is in; a guild it was removed from is unknown to it,
   * as on the platform.
   */
  guild(id: string, accountId = this.bot.id): FakeGuild {
    const guild = this.guilds.get(id);
    if (!guild || !isMember(guild, accountId)) throw platformError.unknownGuild();
    return guild;
  }

  /** A guild channel and its guild, which the bot (or the given bot account) must be in. */
  channel(id: string, accountId = this.bot.id): { guild: FakeGuild; channel: FakeChannel } {
    for (const guild of this.guilds.values()) {
      const channel = guild.channels.find((candidate) => candidate.id === id);
      if (!channel) continue;
      if (!isMember(guild, accountId)) throw platformError.missingAccess();
      return { guild, channel };
    }
    throw platformError.unknownChannel();
  }

  role(guild: FakeGuild, id: string): FakeRole {
    const role = guild.roles.find((candidate) => candidate.id === id);
    if (!role) throw platformError.unknownRole();
    return role;
  }

  member(guild: FakeGuild, userId: string): FakeMember {
    const member = guild.members.find((candidate) => candidate.user_id === userId);
    if (!member) throw platformError.unknownMember();
    return member;
  }

  /** The DM channel opened with the user, if any. */
  dmChannelWith(recipientId: string): string | undefined {
    return this.dmChannelByRecipient.get(recipientId);
  }

  /** The platform keeps one DM channel per recipient. */
  openDm(recipientId: string): string {
    let channelId = this.dmChannelByRecipient.get(recipientId);
    if (!channelId) {
      channelId = this.ids.next();
      this.dmChannelByRecipient.set(recipientId, channelId);
      this.dmRecipientByChannel.set(channelId, recipientId);
    }
    return channelId;
  }

  dmRecipient(channelId: string): string | undefined {
    return this.dmRecipientByChannel.get(channelId);
  }

  /** Logs a DM the bot sent, and remembers its nonce for the nonce window. */
  recordDm(record: DmRecord): void {
    this.dmLog.push(record);
    if (record.nonce === undefined) return;
    this.forgetNoncesBefore(record.sentAt.getTime() - NONCE_WINDOW_MS);
    const key = nonceKey(record.channelId, record.nonce);
    // Re-inserted, not overwritten, so the map stays ordered by time.
    this.dmByNonce.delete(key);
    this.dmByNonce.set(key, record);
  }

  /** The bot's message in the channel with this nonce, sent within the nonce window before `now`. */
  recentDmWithNonce(channelId: string, nonce: string | number, now: number): DmRecord | undefined {
    const record = this.dmByNonce.get(nonceKey(channelId, nonce));
    return record && record.sentAt.getTime() > now - NONCE_WINDOW_MS ? record : undefined;
  }

  /** Drops a guild and what the store keeps beside it (its bans and audit log). */
  deleteGuild(id: string): void {
    const roleIds = this.guilds.get(id)?.roles.map((role) => role.id) ?? [];
    this.images.dropGuild(id, roleIds);
    this.guilds.delete(id);
    this.bans.delete(id);
    this.expressions.dropGuild(id);
    for (const [webhookId, webhook] of this.webhooks) {
      if (webhook.guild_id !== id) continue;
      this.webhooks.delete(webhookId);
      this.webhookAvatars.set(webhookId, null);
    }
    this.auditLogs.dropGuild(id);
    this.autoModRules.dropGuild(id);
    this.welcomeFlows.dropGuild(id);
  }

  /**
   * Drops everything but the bot user, OAuth2 applications included; every intent is on again,
   * and the sharding figures are the defaults.
   */
  clear(): void {
    this.guilds.clear();
    this.gatewayLimits.clear();
    this.bans.clear();
    this.expressions.clear();
    this.images.clear();
    this.webhooks.clear();
    this.withoutMembersIntent.clear();
    this.auditLogs.clear();
    this.users.clear();
    this.users.set(this.bot.id, this.bot);
    this.dmsClosed.clear();
    this.dmLog.clear();
    this.dmByNonce.clear();
    this.dmRecipientByChannel.clear();
    this.dmChannelByRecipient.clear();
    this.oauth.clear();
    this.interactions.clear();
    this.autoModRules.clear();
    this.webhookAvatars.clear();
    this.welcomeFlows.clear();
  }

  private forgetNoncesBefore(cutoff: number): void {
    for (const [key, record] of this.dmByNonce) {
      if (record.sentAt.getTime() > cutoff) return;
      this.dmByNonce.delete(key);
    }
  }
}

export function isMember(guild: FakeGuild, userId: string): boolean {
  return guild.members.some((member) => member.user_id === userId);
}

/** The platform compares nonces as text: 42 and "42" are the same nonce. */
function nonceKey(channelId: string, nonce: string | number): string {
  return `${channelId}:${String(nonce)}`;
}
