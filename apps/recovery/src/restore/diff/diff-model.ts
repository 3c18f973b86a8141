import { CHANNEL_TYPE_FIELDS, FORUM_FIELDS } from '@lib/chat-platform';
import type {
  GuildImageSlot,
  GuildSettings,
  PlatformAutoModRule,
  PlatformEmoji,
  PlatformOnboarding,
  PlatformWelcomeScreen,
  PlatformSticker,
  PlatformWebhook,
  GuildState,
  PlatformBan,
  ChannelTypeFields,
  ForumFields,
  PlatformChannel,
  PlatformMember,
  PlatformRole,
} from '@lib/chat-platform';
import type { Unreadable } from '../../snapshots/guild-membership';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import type { RestoreScope } from '@lib/contracts';

/**
 * `image`: a guild image's or a role icon's hash, which a new upload replaces; `forum_tag`: a
 * forum's tag, which a recreated forum (or a tag given back) gets anew.
 */
export type IdKind =
  'role' | 'channel' | 'emoji' | 'sticker' | 'image' | 'automod_rule' | 'webhook' | 'forum_tag';

/**
 * Where a snapshot's platform id lives now. A role or channel the restore creates anew gets a new
 * platform id; `replacements` remembers original -> replacement per guild, so overrides,
 * parents and later previews follow it (chains are followed: X -> Y -> Z).
 */
export interface IdResolution {
  /** The live id of a snapshot item, or undefined if neither it nor a replacement exists live. */
  resolve(kind: IdKind, snapshotId: string): string | undefined;
}

/**
 * A role as the diff shows it; colours are `#rrggbb` (docs/behaviour.md §2.2). `color` is the
 * primary colour; a secondary one makes a gradient, a tertiary one a holographic role (null: none).
 * `icon`: the platform's hash of the role's icon image (null: none).
 */
export interface RoleItem {
  id: string;
  name: string;
  color: string;
  secondary_color: string | null;
  tertiary_color: string | null;
  permissions: string;
  hoist: boolean;
  mentionable: boolean;
  position: number;
  managed: boolean;
  unicode_emoji: string | null;
  icon: string | null;
}

export type ChannelItem = Pick<
  PlatformChannel,
  | 'id'
  | 'type'
  | 'name'
  | 'position'
  | 'parent_id'
  | 'topic'
  | 'nsfw'
  | 'rate_limit_per_user'
  | 'bitrate'
  | 'user_limit'
> &
  ChannelTypeFields &
  ForumFields;

export interface OverrideItem {
  /** Snapshot-space ids in `overrides_to_apply`, live ids in `overrides_to_remove`. */
  channel_id: string;
  channel_name: string;
  /** The role's or member's id. */
  id: string;
  type: 'role' | 'member';
  /** The role's name, or null for a member. */
  target_name: string | null;
  allow: string;
  deny: string;
}

export interface UpdateItem<T> {
  /** Live (ids are live ids). */
  current: T;
  /** From the snapshot (ids are snapshot ids). */
  target: T;
  changed_fields: string[];
}

/**
 * A role members get back (scope `member_roles`): the members in the guild now who held it in the
 * snapshot and lack it, counted, with a few of their names.
 */
export interface MemberRoleItem {
  /** The snapshot's role id. */
  role_id: string;
  role_name: string;
  members: number;
  /** Up to MEMBER_SAMPLE_SIZE names (display name, else username), in member id order. */
  sample: string[];
}

/** A ban made since the snapshot (scope `bans`): lifted by the restore. A ban in the snapshot stays. */
export interface BanItem {
  user_id: string;
  /** The user's display name, else username. */
  name: string;
  reason: string | null;
}

/**
 * A snapshot value the live guild cannot take (a limit of its boost level, a feature it lacks),
 * restored as the nearest value it takes: the item's target in the diff carries `restored_value`.
 * Listed for the roles and channels the restore creates or changes in that field.
 */
export interface ClampedItem {
  scope: 'roles' | 'channels';
  /** The snapshot's id of the role or channel. */
  id: string;
  name: string;
  field:
    | 'secondary_color'
    | 'tertiary_color'
    | 'unicode_emoji'
    | 'icon'
    | 'bitrate'
    | 'topic'
    | 'available_tags'
    | 'default_reaction_emoji';
  snapshot_value: string | number | null;
  restored_value: string | number | null;
  reason: string;
}

/** A custom emoji as the diff shows it; `roles` (who may use it; empty: everyone) are role ids. */
export interface EmojiItem {
  id: string;
  name: string;
  animated: boolean;
  roles: string[];
}

export interface StickerItem {
  id: string;
  name: string;
  description: string | null;
  tags: string;
  format_type: number;
}

/** An AutoMod rule as the diff shows it (its trigger's and actions' details are in the snapshot). */
export interface AutoModRuleItem {
  id: string;
  name: string;
  trigger_type: number;
  enabled: boolean;
}

/** An onboarding prompt as the diff shows it (its options' details are in the snapshot). */
export interface OnboardingPromptItem {
  id: string;
  title: string;
  /** How many options it offers. */
  options: number;
}

/**
 * A webhook as the diff shows it: its channel (for one to make, the live channel it goes to) and
 * its avatar's kept image (digest; null without one). Never its token or address.
 */
export interface WebhookItem {
  id: string;
  name: string;
  channel_id: string;
  image: string | null;
}

/** One of the guild's images put back (`target` a snapshot's hash) or removed (`target` null). */
export interface GuildImageItem {
  slot: GuildImageSlot;
  current: string | null;
  target: string | null;
}

/** Something the restore will not attempt, with why (e.g. a role above the bot's highest role). */
export interface SkippedItem {
  scope: RestoreScope;
  id: string;
  name: string;
  reason: string;
}

/** The boost level and features are the platform's to give (boosts, plans), not a restore's. */
export type RestorableSetting = Exclude<
  keyof GuildSettings,
  'id' | 'owner_id' | 'premium_tier' | 'features' | GuildImageSlot
>;

/** docs/behaviour.md §2.2. Items are sorted so equal guilds give byte-equal diffs (and equal hashes). */
export interface RestoreDiff {
  roles_to_create: RoleItem[];
  roles_to_update: UpdateItem<RoleItem>[];
  roles_to_delete: { id: string; name: string }[];
  channels_to_create: ChannelItem[];
  channels_to_update: UpdateItem<ChannelItem>[];
  channels_to_delete: { id: string; name: string; type: number }[];
  overrides_to_apply: OverrideItem[];
  overrides_to_remove: OverrideItem[];
  guild_settings_diff: Partial<Record<RestorableSetting, { current: unknown; target: unknown }>>;
  /** Per role, members who get it back; each member is updated once with all their roles. */
  member_roles_to_restore: MemberRoleItem[];
  /** Members to update: those in the guild who lack at least one role they held. */
  members_to_update: number;
  /**
   * Members who held roles in the snapshot and are not in the guild now (left, kicked or banned):
   * the platform does not let a bot add them back, so they are reported only.
   */
  members_absent: number;
  bans_to_lift: BanItem[];
  /**
   * The guild's custom emojis, stickers and images (scopes `emojis`, `stickers`, `guild_images`):
   * present only when the restore asks for their scope, so a diff of the other scopes is as it was
   * before they existed (and its hash with it).
   */
  emojis_to_create?: EmojiItem[];
  emojis_to_update?: UpdateItem<EmojiItem>[];
  emojis_to_delete?: EmojiItem[];
  stickers_to_create?: StickerItem[];
  stickers_to_update?: UpdateItem<StickerItem>[];
  stickers_to_delete?: StickerItem[];
  guild_images_to_set?: GuildImageItem[];
  /** With `automod`: rules made anew, set back (`changed_fields`) and deleted. */
  automod_rules_to_create?: AutoModRuleItem[];
  automod_rules_to_update?: UpdateItem<AutoModRuleItem>[];
  automod_rules_to_delete?: AutoModRuleItem[];
  /**
   * With `onboarding`: the welcome screen's fields set back (`enabled`, `description`,
   * `welcome_channels`), the onboarding's own (`default_channel_ids`, `enabled`, `mode`), and its
   * prompts made, set back (`changed_fields`) and removed. Both are written whole, once each.
   */
  welcome_screen_changes?: string[];
  onboarding_changes?: string[];
  onboarding_prompts_to_create?: OnboardingPromptItem[];
  onboarding_prompts_to_update?: UpdateItem<OnboardingPromptItem>[];
  onboarding_prompts_to_delete?: OnboardingPromptItem[];
  /**
   * With `webhooks`: incoming webhooks made anew (each gets a new address), set back
   * (`changed_fields`: name, channel_id, avatar) and deleted.
   */
  webhooks_to_create?: WebhookItem[];
  webhooks_to_update?: UpdateItem<WebhookItem>[];
  webhooks_to_delete?: WebhookItem[];
  skipped: SkippedItem[];
  /** Values restored as the live guild's limits allow, not as the snapshot has them. */
  clamped: ClampedItem[];
  estimated_duration: string;
}

/** What the bot may do in the live guild: it acts only below its highest role, granting what it holds. */
export interface BotStanding {
  highestRolePosition: number;
  /** Guild-level; in a channel its overrides count too (override-plan's `overrideRefusal`). */
  permissions: bigint;
  isOwner: boolean;
  userId: string;
  /** The bot's roles (without @everyone), for the overrides that apply to it in a channel. */
  roleIds: readonly string[];
}

/** The live guild's custom emojis and stickers; read only for their scopes. */
export interface LiveExpressions {
  emojis: PlatformEmoji[];
  stickers: PlatformSticker[];
  /** Read only for the `automod` scope. */
  automodRules?: PlatformAutoModRule[];
  /** Read only for the `onboarding` scope; none where the bot may not read them. */
  welcomeFlow?: { welcomeScreen: PlatformWelcomeScreen | null; onboarding: PlatformOnboarding };
}

/**
 * A live incoming webhook with its avatar's digest: taken from the snapshot where it holds that
 * avatar hash, else read from the CDN (null without an avatar, or when the CDN would not give it).
 */
export interface LiveWebhook extends PlatformWebhook {
  image: string | null;
}

export interface DiffInput {
  target: SnapshotPayload;
  live: GuildState;
  expressions?: LiveExpressions;
  /** The guild's incoming webhooks now; read only for the `webhooks` scope (absent: not readable). */
  webhooks?: LiveWebhook[];
  /** The guild's members now; read only for the `member_roles` scope. */
  members?: PlatformMember[] | Unreadable;
  /** The guild's bans now; read only for the `bans` scope. */
  bans?: PlatformBan[] | Unreadable;
  scope: readonly RestoreScope[];
  ids: IdResolution;
  bot: BotStanding;
}

/** Why an item is in `skipped`. */
export const SKIP_REASON = {
  managedRole: 'managed by an integration; it comes back when the integration is re-added',
  aboveBot: 'above the bot’s highest role',
  permissionsNotHeld: 'grants permissions the bot does not hold',
  channelNotVisible: 'the bot cannot see its channel',
  noManagePermissions: 'the bot lacks Manage Permissions in its channel',
  permissionsNotHeldInChannel: 'sets permissions the bot does not hold in its channel',
  manageRolesInOverride:
    'sets Manage Permissions, which only an administrator or a bot allowed it in that channel may set',
  channelNotRestored: 'its channel is not restored',
  roleNotRestored: 'its role is not restored',
  notInSnapshot: 'the snapshot was taken before members’ roles and bans were kept',
  notRead: 'the guild’s list was not read for this comparison',
  expressionsNotInSnapshot: 'the snapshot was taken before emojis, stickers and images were kept',
  imageNotKept: 'its image is not in the snapshot (see the snapshot’s omitted parts)',
  roleIconNotKept:
    'its icon’s image is not in the snapshot (see the snapshot’s omitted parts): the role’s icon is left as it is',
  noFreeSlot: 'no free slot is left at the guild’s boost level',
  lottieNotAllowed: 'animated (Lottie) stickers can be uploaded only by verified and partnered servers',
  managedEmoji: 'managed by an integration; it comes back when the integration is re-added',
  automodNotInSnapshot:
    'the snapshot was taken before AutoMod rules were kept, or the bot could not read them',
  automodCap: 'the guild holds as many rules of this trigger type as the platform allows',
  alertChannelNotRestored: 'its alert channel is not in the guild and not restored',
  onboardingNotInSnapshot:
    'the snapshot was taken before the welcome screen and onboarding were kept, or the bot could not read them',
  notCommunity: 'the server is not a Community server: it has no welcome screen or onboarding',
  onboardingNotAllowed: 'the bot lacks the Manage Server and Manage Roles permissions',
  onboardingNotRead: 'the bot may not read the welcome screen and onboarding, or the emojis they name',
  referenceGone: 'not in the guild and not restored: left out, as the platform refuses unknown ids',
  onboardingBelowRequirements:
    'enabling the onboarding needs 7 default channels, 5 of them where everyone may chat, and fewer are in the guild or restored: it is put back disabled',
  webhooksNotInSnapshot: 'the snapshot was taken before webhooks were kept, or the bot could not read them',
  webhookChannelNotRestored: 'its channel is not in the guild and not restored',
  missingManageWebhooks: 'the bot lacks the Manage Webhooks permission',
} as const;

/** A role or channel the restore recreated under a new platform id. */
export interface IdReplacement {
  kind: IdKind;
  original_id: string;
  replacement_id: string;
}

function hexColor(rgb: number): string {
  return `#${rgb.toString(16).padStart(6, '0')}`;
}

export function roleItem(role: PlatformRole): RoleItem {
  const { secondary_color: secondary, tertiary_color: tertiary } = role.colors;
  return {
    id: role.id,
    name: role.name,
    color: hexColor(role.color),
    secondary_color: secondary === null ? null : hexColor(secondary),
    tertiary_color: tertiary === null ? null : hexColor(tertiary),
    permissions: role.permissions,
    hoist: role.hoist,
    mentionable: role.mentionable,
    position: role.position,
    managed: role.managed,
    unicode_emoji: role.unicode_emoji,
    icon: role.icon,
  };
}

export function channelItem(channel: PlatformChannel): ChannelItem {
  return {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    position: channel.position,
    parent_id: channel.parent_id,
    topic: channel.topic,
    nsfw: channel.nsfw,
    rate_limit_per_user: channel.rate_limit_per_user,
    bitrate: channel.bitrate,
    user_limit: channel.user_limit,
    // The fields of the channel's type, and a forum's or media channel's own, where it has them.
    ...Object.fromEntries(
      [...CHANNEL_TYPE_FIELDS, ...FORUM_FIELDS]
        .filter((field) => channel[field] !== undefined)
        .map((field) => [field, channel[field]]),
    ),
  };
}
