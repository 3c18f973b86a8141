import {
  DefaultRestOptions,
  DiscordAPIError,
  REST,
  type RouteLike,
  makeURLSearchParams,
} from '@discordjs/rest';
import {
  type APIAuditLog,
  type APIAutoModerationRule,
  type APIBan,
  type APIChannel,
  type APIEmoji,
  type APIGuild,
  type APIGuildMember,
  type APIGuildOnboarding,
  type APIGuildWelcomeScreen,
  type APIIncidentsData,
  type APIMessage,
  type APIRole,
  type APISticker,
  type APIUser,
  type APIWebhook,
  type RESTGetAPIAuditLogQuery,
  type RESTGetAPIGuildBansQuery,
  type RESTGetAPIGuildMembersQuery,
  Routes,
} from 'discord-api-types/v10';
import { ChatPlatformError } from './chat-platform-error';
import {
  type AutoModRuleInput,
  type AutoModRuleUpdate,
  type PlatformAutoModRule,
  toPlatformAutoModRule,
} from './guild-automod';
import {
  type EmojiInput,
  type EmojiUpdate,
  type GuildImageSlot,
  type PlatformEmoji,
  type PlatformImage,
  type PlatformSticker,
  STICKER_FORMAT,
  type StickerInput,
  type StickerUpdate,
  toPlatformEmoji,
  toPlatformSticker,
} from './guild-expressions';
import {
  type PlatformOnboarding,
  type PlatformWelcomeScreen,
  toPlatformOnboarding,
  toPlatformWelcomeScreen,
  WELCOME_SCREEN_ENABLED_FEATURE,
} from './guild-onboarding';
import {
  type CreatedWebhook,
  type PlatformWebhook,
  toCreatedWebhook,
  toPlatformWebhook,
  type WebhookInput,
  type WebhookUpdate,
} from './guild-webhooks';
import type {
  AuditLogEntry,
  DirectMessage,
  GuildSettings,
  GuildState,
  PermissionOverride,
  PlatformBan,
  PlatformChannelWithOverrides,
  PlatformMember,
  PlatformMessage,
  PlatformRole,
  PlatformUser,
} from './guild-state';
import {
  type WireGuildChannel,
  compareSnowflakes,
  sortByPosition,
  toAuditLogEntry,
  toChannelBody,
  toChannelWithOverrides,
  toGuildSettings,
  toGuildState,
  toPlatformBan,
  toPlatformMember,
  toPlatformMessage,
  toPlatformRole,
  toPlatformUser,
  toWireOverwrite,
} from './guild-state.mapper';
import { toChatPlatformFailure } from './platform-failure.mapper';
import { bucketRoute, FirstCallGate, RequestPacer } from './request-pacer';
import type {
  ChannelInput,
  ChannelPosition,
  ChannelUpdate,
  IncidentActions,
  GuildSettingsUpdate,
  RoleInput,
  RolePosition,
  WriteOptions,
} from './write-inputs';

export interface ChatPlatformClientOptions {
  /** Base address without the version, e.g. `https://discord.com/api` or a fake's url + `/api`. */
  apiBaseUrl: string;
  /** Where the platform's images are read (emojis, stickers, the guild's icon...). Default Discord's CDN. */
  cdnBaseUrl?: string;
  botToken: string;
  /** Per attempt; the client retries a timed-out attempt like a 5xx answer. */
  timeoutMs?: number;
  /**
   * A 429 asking to wait longer than this (a channel's name/topic edits, a guild's creation quota:
   * minutes to days) is not waited out: the call fails RateLimited with the wait, so the caller
   * can wait without holding the call open. Default LONGEST_RATE_LIMIT_WAIT_MS.
   */
  longestRateLimitWaitMs?: number;
}

/** A minute: rate limits shorter than this are waited out inside the client. */
export const LONGEST_RATE_LIMIT_WAIT_MS = 60_000;

const DEFAULT_TIMEOUT_MS = 15_000;
const API_VERSION = '10';
/** The platform's global limit: requests a second for the bot. */
const GLOBAL_PER_SECOND = DefaultRestOptions.globalRequestsPerSecond;
/** The REST client's usual margin past the global window, for the time a request travels. */
const GLOBAL_MARGIN_MS = DefaultRestOptions.offset;
/**
 * Past a bucket's reset before its next call. A bucket's calls go one after another and its reset
 * is counted from the arrival of the answer that announced it, so the next call reaches the
 * platform at least one trip after the reset: this margin covers only the rounding of the header.
 */
const BUCKET_MARGIN_MS = 10;
/** Requests that start at once before the pacer spaces them out (RequestPacer). */
const PACER_BURST = 25;
/** The platform's largest page of the member list and of the ban list. */
const LIST_PAGE_SIZE = 1000;
/** The audit log's largest page. */
export const AUDIT_LOG_PAGE_SIZE = 100;
const MISSING_ACCESS = 50001;
/** The interaction webhooks' paths (after the version), authenticated by the token they carry. */
const INTERACTION_WEBHOOKS = '/webhooks/';

/**
 * The platform refuses the member list of a guild the bot is in as Missing Access only when the
 * bot's application lacks the privileged GUILD_MEMBERS intent; the error says so, as its bare
 * message would not tell an operator what to change.
 */
function explainMembersIntent(error: unknown): unknown {
  if (!(error instanceof ChatPlatformError) || error.details.platform_code !== MISSING_ACCESS) return error;
  return new ChatPlatformError(
    error.code,
    `${error.message}: listing members needs the privileged GUILD_MEMBERS intent, enabled for the bot's application in the developer portal`,
    error.details,
  );
}

/** The error with every occurrence of `secret` in its message and path replaced. */
function withoutSecret(error: unknown, secret: string): unknown {
  if (!(error instanceof ChatPlatformError)) return error;
  const hide = (text: string) => text.split(secret).join(':token');
  const { details } = error;
  return new ChatPlatformError(error.code, hide(error.message), {
    ...details,
    path: details.path === null ? null : hide(details.path),
  });
}

/**
 * The chat platform's REST API as the service uses it, over `@discordjs/rest`: the client queues
 * requests per rate-limit bucket from the platform's headers, waits out 429s (up to
 * `longestRateLimitWaitMs`; a longer one fails RateLimited) and retries 5xx answers and timeouts;
 * whatever still fails is thrown as a ChatPlatformError.
 */
export class ChatPlatformClient {
  private readonly rest: REST;
  private readonly firstCalls = new FirstCallGate();
  /** Calls asked of this client and not yet answered, by route (bucketRoute): the pacer's weights. */
  private readonly outstanding = new Map<string, number>();

  constructor(private readonly options: ChatPlatformClientOptions) {
    // The bot's global limit, counted over any second rather than in the REST client's own fixed
    // windows (see RequestPacer), with the client's usual margin for the time a request travels.
    const pacer = new RequestPacer(GLOBAL_PER_SECOND, 1_000 + GLOBAL_MARGIN_MS, {
      burst: PACER_BURST,
    });
    const versionPath = `${new URL(options.apiBaseUrl).pathname.replace(/\/$/, '')}/v${API_VERSION}`;
    this.rest = new REST({
      version: API_VERSION,
      api: options.apiBaseUrl,
      ...(options.cdnBaseUrl ? { cdn: options.cdnBaseUrl } : {}),
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      // The REST client adds its offset twice to a bucket's reset (once when it reads the answer,
      // again when it waits): half the margin each time. Its default (50 ms, so 100 ms) would
      // lose a tenth of every window, for every ten channels a restore creates.
      offset: BUCKET_MARGIN_MS / 2,
      // The pacer alone keeps the global limit. The REST client's own count (fixed windows, taken
      // when a call leaves its bucket's queue, before the pacer) would spend a window's places on
      // whatever queued first and then hold every route, the busiest included, until its window
      // ends: the pacer's order would never be seen. A global 429 still stops the client (the
      // answer sets its global reset), and the pacer's window keeps it from happening.
      globalRequestsPerSecond: Number.MAX_SAFE_INTEGER,
      // A long wait is the caller's to make (it fails RateLimited, see toChatPlatformFailure).
      rejectOnRateLimit: (limit) =>
        limit.retryAfter > (options.longestRateLimitWaitMs ?? LONGEST_RATE_LIMIT_WAIT_MS),
      // Every attempt, retries included, passes the pacer just before it goes out; when it has to
      // wait, the route with the most calls outstanding goes first.
      // Interaction webhooks are not bound to the bot's global limit, so they skip the pacer.
      makeRequest: async (url, init) => {
        const path = new URL(url).pathname.slice(versionPath.length);
        if (path.startsWith(INTERACTION_WEBHOOKS)) return DefaultRestOptions.makeRequest(url, init);
        const route = bucketRoute(init.method ?? 'get', path);
        await pacer.acquire(() => this.outstanding.get(route) ?? 0);
        return DefaultRestOptions.makeRequest(url, init);
      },
    }).setToken(options.botToken);
  }

  async getCurrentUser(): Promise<PlatformUser> {
    return toPlatformUser(await this.read<APIUser>(Routes.user('@me')));
  }

  async getGuild(guildId: string): Promise<GuildSettings> {
    return toGuildSettings(await this.read<APIGuild>(Routes.guild(guildId)));
  }

  /** Settings, roles (from the guild object) and channels with their overrides flattened out. */
  async getGuildState(guildId: string): Promise<GuildState> {
    const [guild, channels] = await Promise.all([
      this.read<APIGuild>(Routes.guild(guildId)),
      this.read<WireGuildChannel[]>(Routes.guildChannels(guildId)),
    ]);
    return toGuildState(guild, channels);
  }

  /** Every role of the guild, @everyone included (its id is the guild's), sorted by position. */
  async getRoles(guildId: string): Promise<PlatformRole[]> {
    const roles = await this.read<APIRole[]>(Routes.guildRoles(guildId));
    return sortByPosition(roles.map(toPlatformRole));
  }

  async getMember(guildId: string, userId: string): Promise<PlatformMember> {
    return toPlatformMember(await this.read<APIGuildMember>(Routes.guildMember(guildId, userId)));
  }

  /**
   * Every member of the guild, by user id. Needs the bot application's privileged GUILD_MEMBERS
   * intent; without it this fails with PermissionDenied, saying so.
   */
  async listMembers(guildId: string): Promise<PlatformMember[]> {
    try {
      const members = await this.readAllByUserId<APIGuildMember>(Routes.guildMembers(guildId));
      return members.map(toPlatformMember);
    } catch (error) {
      throw explainMembersIntent(error);
    }
  }

  /** Every ban of the guild with its reason, by user id; needs BAN_MEMBERS. */
  async listBans(guildId: string): Promise<PlatformBan[]> {
    const bans = await this.readAllByUserId<APIBan>(Routes.guildBans(guildId));
    return bans.map(toPlatformBan);
  }

  /**
   * One page of the guild's audit log, newest first (the platform keeps 45 days): at most `limit`
   * (1-100) entries, those older than `before` when it is given. Needs VIEW_AUDIT_LOG.
   */
  async readAuditLog(
    guildId: string,
    page: { before?: string; limit?: number } = {},
  ): Promise<AuditLogEntry[]> {
    const query: RESTGetAPIAuditLogQuery = { limit: page.limit ?? AUDIT_LOG_PAGE_SIZE, before: page.before };
    const log = await this.read<APIAuditLog>(Routes.guildAuditLog(guildId), makeURLSearchParams(query));
    return log.audit_log_entries.map(toAuditLogEntry);
  }

  /** The guild's custom emojis, by id. */
  async listEmojis(guildId: string): Promise<PlatformEmoji[]> {
    const emojis = await this.read<APIEmoji[]>(Routes.guildEmojis(guildId));
    return emojis.map(toPlatformEmoji).sort((a, b) => compareSnowflakes(a.id, b.id));
  }

  /** The guild's stickers, by id. */
  async listStickers(guildId: string): Promise<PlatformSticker[]> {
    const stickers = await this.read<APISticker[]>(Routes.guildStickers(guildId));
    return stickers.map(toPlatformSticker).sort((a, b) => compareSnowflakes(a.id, b.id));
  }

  /** Needs CREATE_GUILD_EXPRESSIONS and a free slot of the guild's boost level. */
  async createEmoji(guildId: string, input: EmojiInput, options: WriteOptions = {}): Promise<PlatformEmoji> {
    return toPlatformEmoji(await this.write<APIEmoji>('post', Routes.guildEmojis(guildId), options, input));
  }

  async updateEmoji(
    guildId: string,
    emojiId: string,
    input: EmojiUpdate,
    options: WriteOptions = {},
  ): Promise<PlatformEmoji> {
    const emoji = await this.write<APIEmoji>('patch', Routes.guildEmoji(guildId, emojiId), options, input);
    return toPlatformEmoji(emoji);
  }

  async deleteEmoji(guildId: string, emojiId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('delete', Routes.guildEmoji(guildId, emojiId), options);
  }

  /** The file goes as multipart form data, beside the name, description and tags. */
  async createSticker(
    guildId: string,
    input: StickerInput,
    options: WriteOptions = {},
  ): Promise<PlatformSticker> {
    const route = Routes.guildStickers(guildId);
    const { file, ...fields } = input;
    const sticker = await this.gated<APISticker>('post', route, () =>
      this.rest.post(route, {
        body: fields,
        appendToFormData: true,
        files: [
          {
            key: 'file',
            name: `sticker.${extensionOf(file)}`,
            data: file.bytes,
            contentType: file.content_type,
          },
        ],
        reason: options.reason,
      }),
    );
    return toPlatformSticker(sticker);
  }

  async updateSticker(
    guildId: string,
    stickerId: string,
    input: StickerUpdate,
    options: WriteOptions = {},
  ): Promise<PlatformSticker> {
    const route = Routes.guildSticker(guildId, stickerId);
    return toPlatformSticker(await this.write<APISticker>('patch', route, options, input));
  }

  async deleteSticker(guildId: string, stickerId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('delete', Routes.guildSticker(guildId, stickerId), options);
  }

  /** The guild's AutoMod rules, by id; needs MANAGE_GUILD. */
  async listAutoModRules(guildId: string): Promise<PlatformAutoModRule[]> {
    const rules = await this.read<APIAutoModerationRule[]>(Routes.guildAutoModerationRules(guildId));
    return rules.map(toPlatformAutoModRule).sort((a, b) => compareSnowflakes(a.id, b.id));
  }

  async createAutoModRule(
    guildId: string,
    input: AutoModRuleInput,
    options: WriteOptions = {},
  ): Promise<PlatformAutoModRule> {
    const route = Routes.guildAutoModerationRules(guildId);
    return toPlatformAutoModRule(await this.write<APIAutoModerationRule>('post', route, options, input));
  }

  async updateAutoModRule(
    guildId: string,
    ruleId: string,
    input: AutoModRuleUpdate,
    options: WriteOptions = {},
  ): Promise<PlatformAutoModRule> {
    const route = Routes.guildAutoModerationRule(guildId, ruleId);
    return toPlatformAutoModRule(await this.write<APIAutoModerationRule>('patch', route, options, input));
  }

  async deleteAutoModRule(guildId: string, ruleId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('delete', Routes.guildAutoModerationRule(guildId, ruleId), options);
  }

  /**
   * The guild's welcome screen, enabled as `features` (the guild's, as read) say; null when it has
   * none (a guild that is not a Community's, or one that never set it up: Unknown Guild Welcome
   * Screen). Needs MANAGE_GUILD while it is not enabled.
   */
  async getWelcomeScreen(
    guildId: string,
    features: readonly string[],
  ): Promise<PlatformWelcomeScreen | null> {
    try {
      const screen = await this.read<APIGuildWelcomeScreen>(Routes.guildWelcomeScreen(guildId));
      return toPlatformWelcomeScreen(screen, features);
    } catch (error) {
      if (error instanceof ChatPlatformError && error.code === 'NotFound') return null;
      throw error;
    }
  }

  /** Sets the welcome screen's fields given, `enabled` included; needs MANAGE_GUILD (a Community guild). */
  async modifyWelcomeScreen(
    guildId: string,
    input: Partial<PlatformWelcomeScreen>,
    options: WriteOptions = {},
  ): Promise<PlatformWelcomeScreen> {
    const route = Routes.guildWelcomeScreen(guildId);
    const screen = await this.write<APIGuildWelcomeScreen>('patch', route, options, input);
    // The answer leaves `enabled` out: it is what was asked, else unknown (read as false).
    return toPlatformWelcomeScreen(screen, input.enabled ? [WELCOME_SCREEN_ENABLED_FEATURE] : []);
  }

  /** The guild's onboarding (one that was never set up reads as disabled and empty). */
  async getOnboarding(guildId: string): Promise<PlatformOnboarding> {
    return toPlatformOnboarding(await this.read<APIGuildOnboarding>(Routes.guildOnboarding(guildId)));
  }

  /**
   * Replaces the onboarding with `input` whole (its prompts by id, each with its options); needs
   * MANAGE_GUILD and MANAGE_ROLES (a Community guild).
   */
  async modifyOnboarding(
    guildId: string,
    input: PlatformOnboarding,
    options: WriteOptions = {},
  ): Promise<PlatformOnboarding> {
    const route = Routes.guildOnboarding(guildId);
    return toPlatformOnboarding(await this.write<APIGuildOnboarding>('put', route, options, input));
  }

  /** The guild's webhooks, every type, by id, without their tokens; needs MANAGE_WEBHOOKS. */
  async listWebhooks(guildId: string): Promise<PlatformWebhook[]> {
    const webhooks = await this.read<APIWebhook[]>(Routes.guildWebhooks(guildId));
    return webhooks.map(toPlatformWebhook).sort((a, b) => compareSnowflakes(a.id, b.id));
  }

  /** An incoming webhook in the channel, with its address (a credential: never log it). */
  async createWebhook(
    channelId: string,
    input: WebhookInput,
    options: WriteOptions = {},
  ): Promise<CreatedWebhook> {
    const made = await this.write<APIWebhook>('post', Routes.channelWebhooks(channelId), options, input);
    return toCreatedWebhook(made, this.options.apiBaseUrl);
  }

  /** Renames the webhook, changes its avatar or moves it; the answer has its address. */
  async updateWebhook(
    webhookId: string,
    input: WebhookUpdate,
    options: WriteOptions = {},
  ): Promise<CreatedWebhook> {
    const changed = await this.write<APIWebhook>('patch', Routes.webhook(webhookId), options, input);
    return toCreatedWebhook(changed, this.options.apiBaseUrl);
  }

  async deleteWebhook(webhookId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('delete', Routes.webhook(webhookId), options);
  }

  /** A webhook's avatar from the CDN (`avatars/{id}/{hash}`); an animated one (`a_` hash) as GIF. */
  readWebhookAvatar(webhook: Pick<PlatformWebhook, 'id'> & { avatar: string }): Promise<PlatformImage> {
    const extension = webhook.avatar.startsWith('a_') ? 'gif' : 'png';
    return this.readCdn(this.rest.cdn.avatar(webhook.id, webhook.avatar, { extension }));
  }

  /** An emoji's image from the CDN, in its own format (GIF when it moves). */
  readEmojiImage(emoji: PlatformEmoji): Promise<PlatformImage> {
    return this.readCdn(this.rest.cdn.emoji(emoji.id, { extension: emoji.animated ? 'gif' : 'png' }));
  }

  /** A sticker's file from the CDN, in its own format (Lottie as JSON). */
  readStickerImage(sticker: PlatformSticker): Promise<PlatformImage> {
    const extension =
      sticker.format_type === STICKER_FORMAT.lottie
        ? 'json'
        : sticker.format_type === STICKER_FORMAT.gif
          ? 'gif'
          : 'png';
    return this.readCdn(this.rest.cdn.sticker(sticker.id, extension));
  }

  /** One of the guild's images by its hash; an animated one (`a_` hash) as GIF. */
  readGuildImage(guildId: string, slot: GuildImageSlot, hash: string): Promise<PlatformImage> {
    const extension = hash.startsWith('a_') ? 'gif' : 'png';
    const cdn = this.rest.cdn;
    const url = {
      icon: () => cdn.icon(guildId, hash, { extension }),
      banner: () => cdn.banner(guildId, hash, { extension }),
      splash: () => cdn.splash(guildId, hash, { extension: 'png' }),
      discovery_splash: () => cdn.discoverySplash(guildId, hash, { extension: 'png' }),
    }[slot]();
    return this.readCdn(url);
  }

  /** A role's icon image by its hash, as PNG (the platform keeps no animated role icons). */
  readRoleIcon(roleId: string, hash: string): Promise<PlatformImage> {
    return this.readCdn(this.rest.cdn.roleIcon(roleId, hash, { extension: 'png' }));
  }

  /** Lifts the user's ban; NotFound when they are not banned. */
  async removeBan(guildId: string, userId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('delete', Routes.guildBan(guildId, userId), options);
  }

  async createRole(guildId: string, input: RoleInput, options: WriteOptions = {}): Promise<PlatformRole> {
    const role = await this.write<APIRole>('post', Routes.guildRoles(guildId), options, input);
    return toPlatformRole(role);
  }

  async updateRole(
    guildId: string,
    roleId: string,
    input: RoleInput,
    options: WriteOptions = {},
  ): Promise<PlatformRole> {
    const role = await this.write<APIRole>('patch', Routes.guildRole(guildId, roleId), options, input);
    return toPlatformRole(role);
  }

  async deleteRole(guildId: string, roleId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('delete', Routes.guildRole(guildId, roleId), options);
  }

  /** Returns every role of the guild with its position after the move. */
  async setRolePositions(
    guildId: string,
    positions: RolePosition[],
    options: WriteOptions = {},
  ): Promise<PlatformRole[]> {
    const roles = await this.write<APIRole[]>('patch', Routes.guildRoles(guildId), options, positions);
    return sortByPosition(roles.map(toPlatformRole));
  }

  async createChannel(
    guildId: string,
    input: ChannelInput,
    options: WriteOptions = {},
  ): Promise<PlatformChannelWithOverrides> {
    const channel = await this.write<WireGuildChannel>(
      'post',
      Routes.guildChannels(guildId),
      options,
      toChannelBody(input),
    );
    return toChannelWithOverrides(channel);
  }

  async updateChannel(
    channelId: string,
    input: ChannelUpdate,
    options: WriteOptions = {},
  ): Promise<PlatformChannelWithOverrides> {
    const channel = await this.write<WireGuildChannel>(
      'patch',
      Routes.channel(channelId),
      options,
      toChannelBody(input),
    );
    return toChannelWithOverrides(channel);
  }

  async deleteChannel(channelId: string, options: WriteOptions = {}): Promise<void> {
    await this.write<APIChannel>('delete', Routes.channel(channelId), options);
  }

  async setChannelPositions(
    guildId: string,
    positions: ChannelPosition[],
    options: WriteOptions = {},
  ): Promise<void> {
    await this.write('patch', Routes.guildChannels(guildId), options, positions);
  }

  /** Creates or replaces the override; the platform answers without a body, so this echoes it. */
  async putPermissionOverride(
    override: PermissionOverride,
    options: WriteOptions = {},
  ): Promise<PermissionOverride> {
    const { id, ...body } = toWireOverwrite(override);
    await this.write('put', Routes.channelPermission(override.channel_id, id), options, body);
    return { ...override };
  }

  async deletePermissionOverride(
    channelId: string,
    overrideId: string,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.write('delete', Routes.channelPermission(channelId, overrideId), options);
  }

  async updateGuildSettings(
    guildId: string,
    settings: GuildSettingsUpdate,
    options: WriteOptions = {},
  ): Promise<GuildSettings> {
    const guild = await this.write<APIGuild>('patch', Routes.guild(guildId), options, settings);
    return toGuildSettings(guild);
  }

  async addMemberRole(
    guildId: string,
    userId: string,
    roleId: string,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.write('put', Routes.guildMemberRole(guildId, userId, roleId), options);
  }

  async removeMemberRole(
    guildId: string,
    userId: string,
    roleId: string,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.write('delete', Routes.guildMemberRole(guildId, userId, roleId), options);
  }

  /** Removes the member from the guild (needs KICK_MEMBERS, and a role above theirs). */
  async kickMember(guildId: string, userId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('delete', Routes.guildMember(guildId, userId), options);
  }

  /** Bans the user (needs BAN_MEMBERS); banning a banned user changes nothing. */
  async banMember(guildId: string, userId: string, options: WriteOptions = {}): Promise<void> {
    await this.write('put', Routes.guildBan(guildId, userId), options, {});
  }

  /**
   * The ids of the guild's roles that belong to the bot user `botUserId` (its integration's managed
   * role, `tags.bot_id`): a member cannot lose such a role, only the role its permissions.
   */
  async getBotRoleIds(guildId: string, botUserId: string): Promise<string[]> {
    const roles = await this.read<APIRole[]>(Routes.guildRoles(guildId));
    return roles.filter((role) => role.tags?.bot_id === botUserId).map((role) => role.id);
  }

  /**
   * Pauses (or, with null, resumes) invites and direct messages in the guild until the given times,
   * at most 24 hours ahead (needs MANAGE_GUILD). Answers what is in force afterwards.
   */
  async setIncidentActions(
    guildId: string,
    actions: IncidentActions,
    options: WriteOptions = {},
  ): Promise<IncidentActions> {
    const answer = await this.write<APIIncidentsData>(
      'put',
      Routes.guildIncidentActions(guildId),
      options,
      actions,
    );
    return {
      invites_disabled_until: answer.invites_disabled_until ?? null,
      dms_disabled_until: answer.dms_disabled_until ?? null,
    };
  }

  /** Replaces the member's roles (without @everyone) in one call. */
  async setMemberRoles(
    guildId: string,
    userId: string,
    roleIds: string[],
    options: WriteOptions = {},
  ): Promise<PlatformMember> {
    const member = await this.write<APIGuildMember>('patch', Routes.guildMember(guildId, userId), options, {
      roles: roleIds,
    });
    return toPlatformMember(member);
  }

  /**
   * Opens (or reuses) the DM channel with the user, then posts the message there. With a nonce the
   * platform enforces it, so a retry after a lost answer (the REST client's or the caller's) gets
   * the message already posted rather than a second one.
   */
  async sendDirectMessage(userId: string, message: DirectMessage): Promise<PlatformMessage> {
    const channel = await this.call<APIChannel>(() =>
      this.rest.post(Routes.userChannels(), { body: { recipient_id: userId } }),
    );
    const { nonce, ...body } = message;
    const sent = await this.call<APIMessage>(() =>
      this.rest.post(Routes.channelMessages(channel.id), {
        body: nonce === undefined ? body : { ...body, nonce, enforce_nonce: true },
      }),
    );
    return toPlatformMessage(sent);
  }

  /**
   * Replaces the content of the original response to an interaction (`PATCH
   * /webhooks/{application_id}/{token}/messages/@original`), e.g. the loading message a deferred
   * response left. The interaction's token is the authentication, valid 15 minutes from the
   * interaction: no bot token is sent, and the call is not paced by the bot's global limit, which
   * the platform does not apply to interaction webhooks. Mentions in the content do not ping.
   * Failures never carry the token (it is a credential) in their message or path.
   */
  async editInteractionReply(
    applicationId: string,
    token: string,
    content: string,
  ): Promise<PlatformMessage> {
    try {
      const message = await this.call<APIMessage>(() =>
        this.rest.patch(Routes.webhookMessage(applicationId, token, '@original'), {
          body: { content, allowed_mentions: { parse: [] } },
          auth: false,
        }),
      );
      return toPlatformMessage(message);
    } catch (error) {
      throw withoutSecret(error, token);
    }
  }

  /** A read; its route's first call goes alone, as a write's does (FirstCallGate). */
  private read<T = unknown>(route: RouteLike, query?: URLSearchParams): Promise<T> {
    return this.gated('get', route, () => this.rest.get(route, { query }));
  }

  /**
   * Every item of a list the platform pages by user id (members, bans): pages of the largest size,
   * each after the last user id of the one before, until a page comes back short. The pages follow
   * one another, so a list of 2,500 is three calls on one bucket.
   */
  private async readAllByUserId<T extends { user: APIUser }>(route: RouteLike): Promise<T[]> {
    const items: T[] = [];
    let after: string | undefined;
    for (;;) {
      const query: RESTGetAPIGuildMembersQuery & RESTGetAPIGuildBansQuery = { limit: LIST_PAGE_SIZE, after };
      const page = await this.read<T[]>(route, makeURLSearchParams(query));
      items.push(...page);
      if (page.length < LIST_PAGE_SIZE) return items;
      after = page[page.length - 1].user.id;
    }
  }

  /**
   * An image from the CDN, which serves without authentication and outside the bot's rate limits.
   * The CDN may answer another format than the extension asked (it converts), so the content type
   * is the answer's. A failure is a ChatPlatformError like the API's (NotFound for a 404).
   */
  private async readCdn(url: string): Promise<PlatformImage> {
    let response: Response;
    try {
      response = await fetch(url, {
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChatPlatformError(
        'PlatformUnavailable',
        `the platform's CDN did not answer: ${String(error)}`,
        {
          status: null,
          platform_code: null,
          method: 'GET',
          path: new URL(url).pathname,
        },
      );
    }
    if (!response.ok) {
      throw new ChatPlatformError(
        response.status === 404 ? 'NotFound' : 'PlatformUnavailable',
        `the platform's CDN answered ${response.status}`,
        { status: response.status, platform_code: null, method: 'GET', path: new URL(url).pathname },
      );
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    const contentType =
      response.headers.get('content-type')?.split(';')[0].trim() || 'application/octet-stream';
    return { bytes, content_type: contentType };
  }

  /** A change on the platform; `options.reason` goes to the guild's audit log. */
  private write<T = unknown>(
    method: 'post' | 'put' | 'patch' | 'delete',
    route: RouteLike,
    options: WriteOptions,
    body?: unknown,
  ): Promise<T> {
    return this.gated(method, route, () => this.rest[method](route, { body, reason: options.reason }));
  }

  /** A call through the first-call gate, counted as outstanding on its route until answered. */
  private async gated<T>(method: string, route: RouteLike, request: () => Promise<unknown>): Promise<T> {
    const key = bucketRoute(method, route);
    this.outstanding.set(key, (this.outstanding.get(key) ?? 0) + 1);
    try {
      return await this.firstCalls.run(key, () => this.call<T>(request));
    } finally {
      const left = (this.outstanding.get(key) ?? 1) - 1;
      if (left > 0) this.outstanding.set(key, left);
      else this.outstanding.delete(key);
    }
  }

  /** Runs one REST call; the response body is the platform's JSON, typed by the caller. */
  private async call<T = unknown>(request: () => Promise<unknown>): Promise<T> {
    try {
      return (await request()) as T;
    } catch (error) {
      // On a 401 the REST client forgets its token, and every later call would fail locally with
      // a confusing error; keep the configured token so they report the platform's answer.
      if (error instanceof DiscordAPIError && error.status === 401) this.rest.setToken(this.options.botToken);
      throw toChatPlatformFailure(error);
    }
  }
}

function extensionOf(image: PlatformImage): string {
  if (image.content_type === 'application/json') return 'json';
  if (image.content_type === 'image/gif') return 'gif';
  return 'png';
}
