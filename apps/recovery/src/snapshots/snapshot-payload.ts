import {
  GUILD_IMAGE_SLOTS,
  type GuildImageSlot,
  type GuildState,
  type PlatformAutoModRule,
  type PlatformEmoji,
  type PlatformOnboarding,
  type PlatformRole,
  type PlatformSticker,
  type PlatformWelcomeScreen,
  type PlatformWebhook,
} from '@lib/chat-platform';
import type { GuildMembership } from './guild-membership';
import { SnapshotErrors } from './snapshots.errors';
import {
  decodeMemberRoles,
  encodeMemberRoles,
  type EncodedMemberRoles,
  MalformedMemberRolesError,
} from './member-roles-codec';

/** The payload version creation writes; reading checks it (docs/behaviour.md §9.2). */
export const SNAPSHOT_PAYLOAD_VERSION = 3;
/**
 * Version 1 has no members' roles or bans, versions 1 and 2 no emojis, stickers or images: a
 * restore of those scopes from them finds nothing to do.
 */
export const SUPPORTED_SNAPSHOT_VERSIONS: readonly number[] = [1, 2, 3];

/** docs/behaviour.md §8: at most 5 MiB of serialised JSON. */
export const SNAPSHOT_MAX_BYTES = 5 * 1024 * 1024;

/**
 * A part of a payload that could not be kept, and why: members' roles and bans (version 2), the
 * emojis and stickers, or some of the images (version 3: those left out are null in the payload).
 */
export interface OmittedPart {
  part: 'member_roles' | 'bans' | 'expressions' | 'images' | 'automod' | 'onboarding' | 'webhooks';
  reason: string;
}

/**
 * An image a snapshot holds, named by the SHA-256 of its bytes (lowercase hex): the bytes are in
 * the image store, once however many snapshots name them. Null where it was left out (`omitted`).
 */
export type ImageDigest = string;

/** A custom emoji as a snapshot keeps it (managed ones, an integration's, are not kept). */
export interface SnapshotEmoji extends Omit<PlatformEmoji, 'managed'> {
  image: ImageDigest | null;
}

export interface SnapshotSticker extends PlatformSticker {
  image: ImageDigest | null;
}

/**
 * An incoming webhook (type 1) as a snapshot keeps it: what a bot can set again (name, channel,
 * avatar: `avatar` the platform's hash, `image` the kept image's digest). Never its token: a
 * restore cannot give a webhook its old address, and makes a new one. Channel-follower (type 2)
 * and application (type 3) webhooks are not kept: a bot cannot make them (the first come back by
 * following the channel again, the second with their application).
 */
export interface SnapshotWebhook extends Omit<PlatformWebhook, 'type'> {
  image: ImageDigest | null;
}

/**
 * Version 3: the guild's emojis, stickers and the images of the guild itself (by slot), and its
 * AutoMod rules and incoming webhooks (each absent where the bot may not read them: `omitted`
 * says so). `role_icons`: the
 * image of each role's icon (`roles[].icon` is only the platform's hash of it), by role id; a role
 * with an icon whose image was not kept is not listed (`omitted` names the images). Absent from
 * payloads written before role icons were kept: their roles' icons are not compared.
 */
export interface SnapshotExpressions {
  emojis: SnapshotEmoji[];
  stickers: SnapshotSticker[];
  guild_images: Partial<Record<GuildImageSlot, ImageDigest>>;
  automod_rules?: PlatformAutoModRule[];
  role_icons?: Record<string, ImageDigest>;
  /**
   * What a new member is shown: the welcome screen (null: the guild has none) and the onboarding
   * flow, kept together; absent where the bot may not read them (`omitted` names `onboarding`).
   */
  welcome_screen?: PlatformWelcomeScreen | null;
  onboarding?: PlatformOnboarding;
  webhooks?: SnapshotWebhook[];
}

/** A ban as a snapshot keeps it. */
export interface SnapshotBan {
  user_id: string;
  reason: string | null;
}

/**
 * Version 1: the guild's state (settings, roles, channels and overrides; never message content),
 * stamped with its version and time. Version 2 adds who held which role (compactly, see
 * member-roles-codec.ts) and the ban list; either is left out, and named in `omitted`, when the bot
 * could not read it or the payload would pass the size limit with it.
 */
export interface SnapshotPayload extends GuildState, Partial<SnapshotExpressions> {
  version: number;
  snapshot_at: string;
  member_roles?: EncodedMemberRoles;
  bans?: SnapshotBan[];
  omitted?: OmittedPart[];
}

/** What version 3 adds to a snapshot, as read; `omitted` says what could not be kept. */
export interface ExpressionsPart {
  parts?: SnapshotExpressions;
  omitted: OmittedPart[];
}

export const OMITTED_FOR_SIZE = `the snapshot would pass its ${SNAPSHOT_MAX_BYTES} byte limit with it`;

/**
 * Builds and serialises the payload, measuring what is stored. The adapter maps the platform's
 * answers onto exactly the fields of its types, so nothing the platform adds later slips in
 * unversioned. Over the size limit, the bans and then the members' roles are left out (named in
 * `omitted`) before the guild's own state is: a restore of roles and channels matters most.
 */
export function serialiseSnapshot(
  state: GuildState,
  at: Date,
  membership: GuildMembership,
  expressions: ExpressionsPart = { omitted: [] },
): { payload: SnapshotPayload; json: string; size: number } {
  const payload: SnapshotPayload = {
    version: SNAPSHOT_PAYLOAD_VERSION,
    snapshot_at: at.toISOString(),
    guild: { ...state.guild },
    roles: state.roles.map((role) => ({ ...role })),
    channels: state.channels.map((channel) => ({ ...channel })),
    permission_overrides: state.permission_overrides.map((override) => ({ ...override })),
    ...expressions.parts,
  };
  const omitted: OmittedPart[] = [...expressions.omitted];
  const { members, bans } = membership;
  if (Array.isArray(members)) {
    payload.member_roles = encodeMemberRoles(
      members.map((member) => ({ id: member.user.id, roles: member.roles })),
    );
  } else if (members) {
    omitted.push({ part: 'member_roles', reason: members.unreadable });
  }
  if (Array.isArray(bans)) {
    // In the platform's order (by user id); a restore reads them as a set.
    payload.bans = bans.map((ban) => ({ user_id: ban.user.id, reason: ban.reason }));
  } else if (bans) {
    omitted.push({ part: 'bans', reason: bans.unreadable });
  }
  const measure = () => {
    const json = JSON.stringify(omitted.length > 0 ? { ...payload, omitted } : payload);
    return { json, size: Buffer.byteLength(json, 'utf8') };
  };
  let measured = measure();
  for (const part of ['bans', 'member_roles'] as const) {
    if (measured.size <= SNAPSHOT_MAX_BYTES || payload[part] === undefined) continue;
    delete payload[part];
    omitted.push({ part, reason: OMITTED_FOR_SIZE });
    measured = measure();
  }
  if (omitted.length > 0) payload.omitted = omitted;
  return { payload, ...measured };
}

/** Checks the version and the shape a restore relies on before anything reads the payload. */
export function readSnapshotPayload(raw: unknown): SnapshotPayload {
  const payload = raw as Partial<SnapshotPayload> | null;
  const version = payload?.version;
  if (typeof version !== 'number' || !SUPPORTED_SNAPSHOT_VERSIONS.includes(version)) {
    throw SnapshotErrors.unsupported(version, SUPPORTED_SNAPSHOT_VERSIONS);
  }
  const complete =
    typeof payload?.guild === 'object' &&
    payload.guild !== null &&
    Array.isArray(payload.roles) &&
    Array.isArray(payload.channels) &&
    Array.isArray(payload.permission_overrides) &&
    (payload.bans === undefined || (Array.isArray(payload.bans) && payload.bans.every(isSnapshotBan))) &&
    (payload.emojis === undefined ||
      (Array.isArray(payload.emojis) && payload.emojis.every(isSnapshotEmoji))) &&
    (payload.stickers === undefined ||
      (Array.isArray(payload.stickers) && payload.stickers.every(isSnapshotSticker))) &&
    (payload.guild_images === undefined || isGuildImages(payload.guild_images)) &&
    (payload.role_icons === undefined || isRoleIcons(payload.role_icons, payload.roles)) &&
    (payload.automod_rules === undefined ||
      (Array.isArray(payload.automod_rules) && payload.automod_rules.every(isAutoModRule))) &&
    (payload.welcome_screen === undefined ||
      payload.welcome_screen === null ||
      isWelcomeScreen(payload.welcome_screen)) &&
    (payload.onboarding === undefined || isOnboarding(payload.onboarding)) &&
    (payload.webhooks === undefined ||
      (Array.isArray(payload.webhooks) && payload.webhooks.every(isSnapshotWebhook)));
  if (!complete) throw SnapshotErrors.unsupported(version, SUPPORTED_SNAPSHOT_VERSIONS);
  const read = payload as SnapshotPayload;
  return { ...read, roles: read.roles.map(withColors) };
}

/**
 * Payloads written before roles kept `colors` have `color` only: a role of one colour then, as
 * the platform reads it (its primary colour is always `color`).
 */
function withColors(role: PlatformRole): PlatformRole {
  const stored = role as Omit<PlatformRole, 'colors'> & { colors?: PlatformRole['colors'] };
  if (stored.colors) return role;
  return { ...stored, colors: { primary_color: stored.color, secondary_color: null, tertiary_color: null } };
}

/**
 * Who held which role in the snapshot (member id -> role ids); null where the snapshot does not
 * say (version 1, or left out: `omitted` says why). A malformed list is refused as unsupported.
 */
export function snapshotMemberRoles(payload: SnapshotPayload): Map<string, string[]> | null {
  if (payload.member_roles === undefined) return null;
  try {
    return decodeMemberRoles(payload.member_roles);
  } catch (error) {
    if (error instanceof MalformedMemberRolesError)
      throw SnapshotErrors.unsupported(payload.version, SUPPORTED_SNAPSHOT_VERSIONS);
    throw error;
  }
}

function isSnapshotBan(ban: unknown): ban is SnapshotBan {
  const candidate = ban as Partial<SnapshotBan> | null;
  return (
    typeof candidate?.user_id === 'string' &&
    (candidate.reason === null || typeof candidate.reason === 'string')
  );
}

const DIGEST = /^[0-9a-f]{64}$/;

function isDigestOrNull(value: unknown): boolean {
  return value === null || (typeof value === 'string' && DIGEST.test(value));
}

function isSnapshotEmoji(emoji: unknown): emoji is SnapshotEmoji {
  const candidate = emoji as Partial<SnapshotEmoji> | null;
  return (
    typeof candidate?.id === 'string' &&
    typeof candidate.name === 'string' &&
    typeof candidate.animated === 'boolean' &&
    Array.isArray(candidate.roles) &&
    candidate.roles.every((role) => typeof role === 'string') &&
    isDigestOrNull(candidate.image)
  );
}

function isSnapshotSticker(sticker: unknown): sticker is SnapshotSticker {
  const candidate = sticker as Partial<SnapshotSticker> | null;
  return (
    typeof candidate?.id === 'string' &&
    typeof candidate.name === 'string' &&
    (candidate.description === null || typeof candidate.description === 'string') &&
    typeof candidate.tags === 'string' &&
    typeof candidate.format_type === 'number' &&
    isDigestOrNull(candidate.image)
  );
}

function isAutoModRule(rule: unknown): rule is PlatformAutoModRule {
  const candidate = rule as Partial<PlatformAutoModRule> | null;
  const ids = (list: unknown) => Array.isArray(list) && list.every((id) => typeof id === 'string');
  return (
    typeof candidate?.id === 'string' &&
    typeof candidate.name === 'string' &&
    typeof candidate.event_type === 'number' &&
    typeof candidate.trigger_type === 'number' &&
    typeof candidate.trigger_metadata === 'object' &&
    candidate.trigger_metadata !== null &&
    Array.isArray(candidate.actions) &&
    candidate.actions.every(
      (action) => typeof action?.type === 'number' && typeof action.metadata === 'object',
    ) &&
    typeof candidate.enabled === 'boolean' &&
    ids(candidate.exempt_roles) &&
    ids(candidate.exempt_channels)
  );
}

const isIds = (list: unknown) => Array.isArray(list) && list.every((id) => typeof id === 'string');
const isStringOrNull = (value: unknown) => value === null || typeof value === 'string';

function isWelcomeScreen(screen: unknown): screen is PlatformWelcomeScreen {
  const candidate = screen as Partial<PlatformWelcomeScreen> | null;
  return (
    typeof candidate?.enabled === 'boolean' &&
    isStringOrNull(candidate.description) &&
    Array.isArray(candidate.welcome_channels) &&
    candidate.welcome_channels.every(
      (channel) =>
        typeof channel?.channel_id === 'string' &&
        typeof channel.description === 'string' &&
        isStringOrNull(channel.emoji_id) &&
        isStringOrNull(channel.emoji_name),
    )
  );
}

function isOnboarding(onboarding: unknown): onboarding is PlatformOnboarding {
  const candidate = onboarding as Partial<PlatformOnboarding> | null;
  return (
    typeof candidate?.enabled === 'boolean' &&
    typeof candidate.mode === 'number' &&
    isIds(candidate.default_channel_ids) &&
    Array.isArray(candidate.prompts) &&
    candidate.prompts.every(
      (prompt) =>
        typeof prompt?.id === 'string' &&
        typeof prompt.title === 'string' &&
        typeof prompt.type === 'number' &&
        typeof prompt.single_select === 'boolean' &&
        typeof prompt.required === 'boolean' &&
        typeof prompt.in_onboarding === 'boolean' &&
        Array.isArray(prompt.options) &&
        prompt.options.every(
          (option) =>
            typeof option?.id === 'string' &&
            typeof option.title === 'string' &&
            isStringOrNull(option.description) &&
            isStringOrNull(option.emoji_id) &&
            isStringOrNull(option.emoji_name) &&
            typeof option.emoji_animated === 'boolean' &&
            isIds(option.role_ids) &&
            isIds(option.channel_ids),
        ),
    )
  );
}

function isSnapshotWebhook(webhook: unknown): webhook is SnapshotWebhook {
  const candidate = webhook as Partial<SnapshotWebhook> | null;
  return (
    typeof candidate?.id === 'string' &&
    typeof candidate.channel_id === 'string' &&
    typeof candidate.name === 'string' &&
    (candidate.avatar === null || typeof candidate.avatar === 'string') &&
    isDigestOrNull(candidate.image)
  );
}

function isGuildImages(images: unknown): boolean {
  return (
    typeof images === 'object' &&
    images !== null &&
    Object.entries(images).every(
      ([slot, digest]) =>
        (GUILD_IMAGE_SLOTS as readonly string[]).includes(slot) &&
        typeof digest === 'string' &&
        DIGEST.test(digest),
    )
  );
}

/** Role ids of the payload's roles, each to a digest. */
function isRoleIcons(icons: unknown, roles: unknown[]): boolean {
  const ids = new Set(roles.map((role) => (role as Partial<PlatformRole> | null)?.id));
  return (
    typeof icons === 'object' &&
    icons !== null &&
    !Array.isArray(icons) &&
    Object.entries(icons).every(
      ([roleId, digest]) => ids.has(roleId) && typeof digest === 'string' && DIGEST.test(digest),
    )
  );
}

/** Every image digest the payload names (what a restore or an export reads from the store). */
export function snapshotImageDigests(payload: Partial<SnapshotExpressions>): ImageDigest[] {
  const digests = [
    ...Object.values(payload.guild_images ?? {}),
    ...Object.values(payload.role_icons ?? {}),
    ...(payload.emojis ?? []).map((emoji) => emoji.image),
    ...(payload.stickers ?? []).map((sticker) => sticker.image),
    ...(payload.webhooks ?? []).map((webhook) => webhook.image),
  ];
  return [...new Set(digests.filter((digest): digest is string => typeof digest === 'string'))];
}
