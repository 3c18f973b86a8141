import * as spec from 'discord-api-spec/zod';
import * as z from 'zod/mini';

type Schema = z.core.$ZodType;

/** A component schema of Discord's OpenAPI document, by its name there (`UserPIIResponse`). */
export function discordSchema(name: string): Schema {
  const schema = spec[`${name}Schema`];
  if (!schema) throw new Error(`discord-api-spec has no schema ${name}`);
  return schema;
}

const snowflake = () => discordSchema('SnowflakeType');

/** What one route of Discord's API takes and answers, as its OpenAPI document declares them. */
export interface RouteContract {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The OpenAPI path, e.g. `/guilds/{guild_id}/roles`. */
  path: string;
  /** The request body's schema; undefined for a route that takes none. */
  request?: Schema;
  /** The success answer's body; undefined for a 204 without a body. */
  response?: Schema;
  /** Where the schemas come from, when not from the OpenAPI document's components. */
  source?: string;
  /**
   * Set for the routes the fake serves that only tests and the sandbox call (a raid's bans and
   * kicks, reading the audit log): their answers are held to Discord's schemas all the same.
   */
  notByProduct?: true;
}

/** An AutoMod rule of any trigger type, as the OpenAPI document answers one. */
const AUTOMOD_RULE: Schema = z.union(
  ['DefaultKeywordRule', 'KeywordRule', 'MLSpamRule', 'MentionSpamRule', 'UserProfileRule'].map((name) =>
    discordSchema(`${name}Response`),
  ),
);

/** A webhook of any type, as the OpenAPI document answers one. */
const WEBHOOK: Schema = z.union(
  ['ApplicationIncoming', 'ChannelFollower', 'GuildIncoming'].map((type) =>
    discordSchema(`${type}WebhookResponse`),
  ),
);

/**
 * Every route of Discord's API the product calls: ChatPlatformClient (libs/chat-platform), the
 * gateway app's OAuth client (token, `users/@me` and `users/@me/guilds` with the user's token), and
 * live sync's `GET /gateway/bot`. Request and response schemas are the OpenAPI document's (the
 * `requestBody` and 2xx `responses` of each path); the few bodies it declares inline, not as a
 * component, are copied here field for field.
 */
export const ROUTE_CONTRACTS: RouteContract[] = [
  { method: 'GET', path: '/users/@me', response: discordSchema('UserPIIResponse') },
  // Declared as `MyGuildResponse[] | null`; the list is never null for a signed-in user.
  { method: 'GET', path: '/users/@me/guilds', response: z.array(discordSchema('MyGuildResponse')) },
  {
    method: 'POST',
    path: '/users/@me/channels',
    request: discordSchema('CreatePrivateChannelRequest'),
    // The OpenAPI answer is `PrivateChannelResponse | PrivateGroupChannelResponse`; with a
    // `recipient_id` it is the DM channel.
    response: discordSchema('PrivateChannelResponse'),
  },
  {
    method: 'POST',
    path: '/channels/{channel_id}/messages',
    request: discordSchema('MessageCreateRequest'),
    response: discordSchema('MessageResponse'),
  },
  { method: 'GET', path: '/gateway/bot', response: discordSchema('GatewayBotResponse') },
  { method: 'GET', path: '/guilds/{guild_id}', response: discordSchema('GuildWithCountsResponse') },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}',
    request: discordSchema('GuildPatchRequestPartial'),
    response: discordSchema('GuildResponse'),
  },
  // Declared as a list of guild, DM, group DM and thread channels; a guild's list holds its guild
  // channels only (Discord's docs: "Does not include threads").
  {
    method: 'GET',
    path: '/guilds/{guild_id}/channels',
    response: z.array(discordSchema('GuildChannelResponse')),
  },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/channels',
    request: discordSchema('CreateGuildChannelRequest'),
    response: discordSchema('GuildChannelResponse'),
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/channels',
    source: 'inline requestBody of bulk_update_guild_channels',
    request: z.array(
      z.object({
        id: z.nullish(snowflake()),
        position: z.nullish(z.number()),
        parent_id: z.nullish(snowflake()),
        lock_permissions: z.nullish(z.boolean()),
      }),
    ),
  },
  { method: 'GET', path: '/guilds/{guild_id}/roles', response: z.array(discordSchema('GuildRoleResponse')) },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/roles',
    request: discordSchema('CreateRoleRequest'),
    response: discordSchema('GuildRoleResponse'),
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/roles',
    request: z.array(discordSchema('UpdateRolePositionsRequest')),
    response: z.array(discordSchema('GuildRoleResponse')),
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/roles/{role_id}',
    request: discordSchema('UpdateRoleRequestPartial'),
    response: discordSchema('GuildRoleResponse'),
  },
  { method: 'DELETE', path: '/guilds/{guild_id}/roles/{role_id}' },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/members',
    response: z.array(discordSchema('GuildMemberResponse')),
  },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/members/{user_id}',
    response: discordSchema('GuildMemberResponse'),
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/members/{user_id}',
    source: 'inline requestBody of update_guild_member',
    request: z.object({
      nick: z.nullish(z.string()),
      roles: z.nullish(z.array(z.nullable(snowflake()))),
      mute: z.nullish(z.boolean()),
      deaf: z.nullish(z.boolean()),
      channel_id: z.nullish(snowflake()),
      communication_disabled_until: z.nullish(z.string()),
      flags: z.nullish(z.number()),
    }),
    response: discordSchema('GuildMemberResponse'),
  },
  { method: 'PUT', path: '/guilds/{guild_id}/members/{user_id}/roles/{role_id}' },
  { method: 'DELETE', path: '/guilds/{guild_id}/members/{user_id}/roles/{role_id}' },
  // Declared as `GuildBanResponse[] | null`; a guild's list is never null.
  { method: 'GET', path: '/guilds/{guild_id}/bans', response: z.array(discordSchema('GuildBanResponse')) },
  { method: 'DELETE', path: '/guilds/{guild_id}/bans/{user_id}' },
  {
    method: 'PATCH',
    path: '/channels/{channel_id}',
    // Declared as a union of the DM, group DM, guild channel and thread updates; the product
    // updates guild channels.
    request: discordSchema('UpdateGuildChannelRequestPartial'),
    response: discordSchema('GuildChannelResponse'),
  },
  // Deleting a channel answers with the channel deleted.
  { method: 'DELETE', path: '/channels/{channel_id}', response: discordSchema('GuildChannelResponse') },
  {
    method: 'PUT',
    path: '/channels/{channel_id}/permissions/{overwrite_id}',
    source: 'inline requestBody of set_channel_permission_overwrite',
    request: z.object({
      type: z.nullish(discordSchema('ChannelPermissionOverwrites')),
      allow: z.nullish(z.number()),
      deny: z.nullish(z.number()),
    }),
  },
  { method: 'DELETE', path: '/channels/{channel_id}/permissions/{overwrite_id}' },
  {
    method: 'GET',
    path: '/channels/{channel_id}',
    notByProduct: true,
    response: discordSchema('GuildChannelResponse'),
  },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/bans/{user_id}',
    notByProduct: true,
    response: discordSchema('GuildBanResponse'),
  },
  // AntiNuke's auto-action bans or kicks a raider.
  {
    method: 'PUT',
    path: '/guilds/{guild_id}/bans/{user_id}',
    request: discordSchema('BanUserFromGuildRequest'),
  },
  { method: 'DELETE', path: '/guilds/{guild_id}/members/{user_id}' },
  // AntiNuke's lockdown pauses invites and DMs.
  {
    method: 'PUT',
    path: '/guilds/{guild_id}/incident-actions',
    request: discordSchema('GuildIncidentActionsRequest'),
    response: discordSchema('GuildIncidentsDataResponse'),
  },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/audit-logs',
    notByProduct: true,
    response: discordSchema('GuildAuditLogResponse'),
  },
  // A raider's other tools: prune, bulk ban; and a webhook, which a restore makes too.
  {
    method: 'GET',
    path: '/guilds/{guild_id}/prune',
    notByProduct: true,
    response: discordSchema('GuildPruneResponse'),
  },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/prune',
    notByProduct: true,
    request: discordSchema('PruneGuildRequest'),
    response: discordSchema('GuildPruneResponse'),
  },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/bulk-ban',
    notByProduct: true,
    request: discordSchema('BulkBanUsersRequest'),
    response: discordSchema('BulkBanUsersResponse'),
  },
  {
    method: 'POST',
    path: '/channels/{channel_id}/webhooks',
    // Declared inline in the path.
    request: z.strictObject({ name: z.string(), avatar: z.optional(z.nullable(z.string())) }),
    response: discordSchema('GuildIncomingWebhookResponse'),
  },
  // A snapshot's emojis and stickers, and a restore putting them back (resources/emoji,
  // resources/sticker). Bodies the OpenAPI document declares inline are copied field for field; the
  // sticker upload is a multipart form, its fields checked as the object the document declares
  // (`file` a binary part).
  {
    method: 'GET',
    path: '/guilds/{guild_id}/emojis',
    response: z.array(discordSchema('EmojiResponse')),
  },
  { method: 'DELETE', path: '/guilds/{guild_id}/emojis/{emoji_id}' },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/stickers',
    response: z.array(discordSchema('GuildStickerResponse')),
  },
  { method: 'DELETE', path: '/guilds/{guild_id}/stickers/{sticker_id}' },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/emojis',
    source: 'inline requestBody of create_guild_emoji',
    request: z.object({
      name: z.string(),
      image: z.string(),
      roles: z.nullish(z.array(z.nullable(snowflake()))),
    }),
    response: discordSchema('EmojiResponse'),
  },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/emojis/{emoji_id}',
    notByProduct: true,
    response: discordSchema('EmojiResponse'),
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/emojis/{emoji_id}',
    source: 'inline requestBody of update_guild_emoji',
    request: z.object({ name: z.optional(z.string()), roles: z.nullish(z.array(z.nullable(snowflake()))) }),
    response: discordSchema('EmojiResponse'),
  },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/stickers',
    source: 'inline multipart requestBody of create_guild_sticker',
    request: z.object({
      name: z.string(),
      tags: z.string(),
      description: z.nullish(z.string()),
      file: z.string(),
    }),
    response: discordSchema('GuildStickerResponse'),
  },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/stickers/{sticker_id}',
    notByProduct: true,
    response: discordSchema('GuildStickerResponse'),
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/stickers/{sticker_id}',
    source: 'inline requestBody of update_guild_sticker',
    request: z.object({
      name: z.optional(z.string()),
      tags: z.optional(z.string()),
      description: z.nullish(z.string()),
    }),
    response: discordSchema('GuildStickerResponse'),
  },
  // A snapshot's AutoMod rules, and a restore putting them back (resources/auto-moderation).
  { method: 'GET', path: '/guilds/{guild_id}/auto-moderation/rules', response: z.array(AUTOMOD_RULE) },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/auto-moderation/rules',
    request: z.union(
      ['DefaultKeywordList', 'Keyword', 'MLSpam', 'MentionSpam', 'UserProfile'].map((name) =>
        discordSchema(`${name}UpsertRequest`),
      ),
    ),
    response: AUTOMOD_RULE,
  },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/auto-moderation/rules/{rule_id}',
    notByProduct: true,
    response: AUTOMOD_RULE,
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/auto-moderation/rules/{rule_id}',
    request: z.union(
      ['DefaultKeywordList', 'Keyword', 'MLSpam', 'MentionSpam', 'UserProfile'].map((name) =>
        discordSchema(`${name}UpsertRequestPartial`),
      ),
    ),
    response: AUTOMOD_RULE,
  },
  { method: 'DELETE', path: '/guilds/{guild_id}/auto-moderation/rules/{rule_id}' },
  // The interaction's token in the path is the authentication (interactions/receiving-and-responding,
  // "Followup Messages": the webhook id is the application's id); the product edits the loading
  // message a deferred response left with the command's outcome.
  {
    method: 'PATCH',
    path: '/webhooks/{webhook_id}/{webhook_token}/messages/@original',
    request: discordSchema('IncomingWebhookUpdateRequestPartial'),
    response: discordSchema('MessageResponse'),
  },
  {
    method: 'GET',
    path: '/webhooks/{webhook_id}/{webhook_token}/messages/@original',
    notByProduct: true,
    response: discordSchema('MessageResponse'),
  },
  {
    method: 'POST',
    path: '/oauth2/token',
    // The OpenAPI document leaves the token endpoint out: these are Discord's OAuth2 docs
    // (topics/oauth2, "Authorization Code Grant": the form fields, and the access token response).
    source: 'docs: topics/oauth2, Authorization Code Grant',
    request: z.object({
      grant_type: z.literal('authorization_code'),
      code: z.string(),
      redirect_uri: z.string(),
    }),
    response: z.object({
      access_token: z.string(),
      token_type: z.literal('Bearer'),
      expires_in: z.int(),
      refresh_token: z.string(),
      scope: z.string(),
    }),
  },
  // A snapshot's welcome screen and onboarding, and a restore writing them back whole (resources/guild).
  {
    method: 'GET',
    path: '/guilds/{guild_id}/welcome-screen',
    response: discordSchema('GuildWelcomeScreenResponse'),
  },
  {
    method: 'PATCH',
    path: '/guilds/{guild_id}/welcome-screen',
    request: discordSchema('WelcomeScreenPatchRequestPartial'),
    response: discordSchema('GuildWelcomeScreenResponse'),
  },
  {
    method: 'GET',
    path: '/guilds/{guild_id}/onboarding',
    response: discordSchema('UserGuildOnboardingResponse'),
  },
  {
    method: 'PUT',
    path: '/guilds/{guild_id}/onboarding',
    request: discordSchema('UpdateGuildOnboardingRequest'),
    response: discordSchema('GuildOnboardingResponse'),
  },
  // A snapshot's webhooks, and a restore putting them back (resources/webhook). Lists the document
  // declares nullable (`Webhook[] | null`) are never null for a guild.
  { method: 'GET', path: '/guilds/{guild_id}/webhooks', response: z.array(WEBHOOK) },
  {
    method: 'PATCH',
    path: '/webhooks/{webhook_id}',
    source: 'inline requestBody of update_webhook',
    request: z.object({
      name: z.optional(z.string()),
      avatar: z.nullish(z.string()),
      channel_id: z.nullish(snowflake()),
    }),
    response: WEBHOOK,
  },
  { method: 'DELETE', path: '/webhooks/{webhook_id}' },
];

/**
 * The product's answer to an interaction the platform POSTs to its endpoint: the body of an
 * interaction callback (`requestBody` of `POST /interactions/{interaction_id}/{interaction_token}/callback`;
 * an endpoint's HTTP answer carries the same object), by its callback type. The product answers
 * PING with PONG and an application command with a message (4) or a deferred message (5).
 */
export const INTERACTION_CALLBACKS: ReadonlyMap<number, Schema> = new Map([
  [1, discordSchema('PongInteractionCallbackRequest')],
  [4, discordSchema('CreateMessageInteractionCallbackRequest')],
  [5, discordSchema('CreateMessageInteractionCallbackRequest')],
]);

/** An option of a command as the member filled it in, a subcommand holding its own options. */
const CommandDataOption: Schema = z.object({
  name: z.string(),
  type: z.int(),
  value: z.optional(z.union([z.string(), z.number(), z.boolean()])),
  options: z.optional(z.array(z.lazy(() => CommandDataOption))),
  focused: z.optional(z.boolean()),
});

/**
 * The Interaction object of an APPLICATION_COMMAND as the platform POSTs it to the app's endpoint.
 * The OpenAPI document has no schema for it (it is sent to the app, not answered by a route): the
 * fields are Discord's docs' (interactions/receiving-and-responding, "Interaction Structure",
 * "Application Command Data Structure", "Application Command Interaction Data Option
 * Structure"), typed with the document's schemas where it has one (member, user, entitlement,
 * the interaction and context types). Where the docs name an object partial without listing its
 * fields, the stricter reading: the partial channel has the fields the docs list for a resolved
 * partial channel ("Resolved Data Structure"), and the partial guild the `id`, `locale` and
 * `features` Discord sends (undocumented: discord-api-types' `APIPartialInteractionGuild`).
 */
export const COMMAND_INTERACTION: Schema = z.object({
  id: snowflake(),
  application_id: snowflake(),
  type: z.literal(2),
  data: z.object({
    id: snowflake(),
    name: z.string(),
    type: z.int(),
    options: z.optional(z.array(CommandDataOption)),
    guild_id: z.optional(snowflake()),
    target_id: z.optional(snowflake()),
  }),
  guild: z.optional(
    z.object({ id: snowflake(), locale: z.optional(z.string()), features: z.array(z.string()) }),
  ),
  guild_id: z.optional(snowflake()),
  channel: z.optional(
    z.object({
      id: snowflake(),
      type: z.int(),
      name: z.optional(z.nullable(z.string())),
      permissions: z.optional(z.string()),
      last_message_id: z.optional(z.nullable(snowflake())),
      last_pin_timestamp: z.optional(z.nullable(z.string())),
      nsfw: z.optional(z.boolean()),
      parent_id: z.optional(z.nullable(snowflake())),
      guild_id: z.optional(snowflake()),
      flags: z.optional(z.int()),
      rate_limit_per_user: z.optional(z.int()),
      topic: z.optional(z.nullable(z.string())),
      position: z.optional(z.int()),
    }),
  ),
  channel_id: z.optional(snowflake()),
  // "Guild member data for the invoking user, including permissions".
  member: z.optional(
    z.extend(discordSchema('GuildMemberResponse') as z.ZodMiniObject, { permissions: z.string() }),
  ),
  user: z.optional(discordSchema('UserResponse')),
  token: z.string(),
  version: z.literal(1),
  app_permissions: z.string(),
  locale: z.optional(z.string()),
  guild_locale: z.optional(z.string()),
  entitlements: z.array(discordSchema('EntitlementResponse')),
  authorizing_integration_owners: z.record(z.string(), snowflake()),
  context: z.optional(discordSchema('InteractionContextType')),
  attachment_size_limit: z.int(),
});

/**
 * The `errors` of an Invalid Form Body answer: per field, nested as the body is, `_errors` with a
 * code and a message each. The OpenAPI document reuses its numeric `Error` there; Discord's docs
 * (topics/opcodes-and-status-codes, "Error Messages") show string codes (`BASE_TYPE_REQUIRED`),
 * which is what the API sends: the docs' form.
 */
const FieldErrors: Schema = z.union([
  z.object({ _errors: z.array(z.object({ code: z.string(), message: z.string() })) }),
  z.record(
    z.string(),
    z.lazy(() => FieldErrors),
  ),
]);

/**
 * Media channels (type 16, GUILD_MEDIA) in the channel schemas. Discord's docs list the type
 * (resources/channel, "Channel Types") and give it a forum's fields but the layout ("Forum,
 * Media" in Create Guild Channel and Modify Channel); the OpenAPI document's channel schemas list
 * types 0 to 15 only. These are its schemas with 16 added to `type`, nothing else changed.
 */
const GUILD_CHANNEL_TYPES = z.literal([0, 2, 4, 5, 13, 14, 15, 16]);
const withMedia = (name: string): Schema =>
  z.extend(discordSchema(name) as z.ZodMiniObject, { type: GUILD_CHANNEL_TYPES });
const withMediaRequest = (name: string): Schema =>
  z.extend(discordSchema(name) as z.ZodMiniObject, { type: z.nullish(GUILD_CHANNEL_TYPES) });
const MEDIA_SOURCE = 'OpenAPI schema with GUILD_MEDIA (16) added to `type`, from resources/channel';

/**
 * The channel routes as forum and media channels use them (issue 44: snapshots keep their tags,
 * default reaction, sort order, layout and thread slow mode), with media channels' type 16 allowed
 * (see `withMedia`). Checked by guild-images-forums.test.ts beside the guild and role routes of
 * ROUTE_CONTRACTS, which already declare the image fields (`icon`, `banner`, `splash`,
 * `discovery_splash` of GuildPatchRequestPartial; a role's `icon` and `unicode_emoji`).
 */
export const GUILD_IMAGE_FORUM_CONTRACTS: RouteContract[] = [
  {
    method: 'GET',
    path: '/guilds/{guild_id}/channels',
    source: MEDIA_SOURCE,
    response: z.array(withMedia('GuildChannelResponse')),
  },
  {
    method: 'POST',
    path: '/guilds/{guild_id}/channels',
    source: MEDIA_SOURCE,
    request: withMediaRequest('CreateGuildChannelRequest'),
    response: withMedia('GuildChannelResponse'),
  },
  {
    method: 'GET',
    path: '/channels/{channel_id}',
    source: MEDIA_SOURCE,
    response: withMedia('GuildChannelResponse'),
  },
  {
    method: 'PATCH',
    path: '/channels/{channel_id}',
    source: MEDIA_SOURCE,
    request: discordSchema('UpdateGuildChannelRequestPartial'),
    response: withMedia('GuildChannelResponse'),
  },
];

/**
 * The webhook routes the fake serves (resources/webhook) that ROUTE_CONTRACTS does not hold yet:
 * the product will call them to back up and restore a guild's webhooks, and they move there with
 * the client methods that call them. Checked by automod-webhooks-onboarding.test.ts. Lists the
 * document declares nullable (`Rule[] | null`, `Webhook[] | null`) are never null for a guild.
 */
export const GUILD_SETUP_CONTRACTS: RouteContract[] = [
  { method: 'GET', path: '/channels/{channel_id}/webhooks', response: z.array(WEBHOOK) },
  { method: 'GET', path: '/webhooks/{webhook_id}', response: WEBHOOK },
];

/**
 * Any 4xx answer but a 429: the OpenAPI document's `ErrorResponse`, its JSON error `code` and
 * `message`, and `errors` for an Invalid Form Body.
 */
export const ERROR_RESPONSE: Schema = z.intersection(
  discordSchema('Error'),
  z.object({ errors: z.optional(FieldErrors) }),
);

/** The contract of the route a request went to: `/api/v10/guilds/1/roles` is `/guilds/{guild_id}/roles`. */
export function contractFor(
  method: string,
  apiPath: string,
  contracts: readonly RouteContract[] = ROUTE_CONTRACTS,
): RouteContract | undefined {
  return contracts.find((contract) => contract.method === method && pathPattern(contract.path).test(apiPath));
}

function pathPattern(path: string): RegExp {
  const segments = path
    .split('/')
    .map((segment) => (segment.startsWith('{') ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * The body with its permission bitfields (`permissions`, `allow`, `deny`) as numbers. Discord's
 * docs serialize them as strings and take either form; the OpenAPI document's request schemas
 * type them as integers, so the numeric form is what they can check.
 */
export function numericBitfields(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(numericBitfields);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      ['permissions', 'allow', 'deny'].includes(key) && typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : numericBitfields(value),
    ]),
  );
}
