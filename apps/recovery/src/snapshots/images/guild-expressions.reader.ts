import {
  type ChatPlatformClient,
  GUILD_IMAGE_SLOTS,
  type GuildImageSlot,
  type GuildSettings,
  isChatPlatformError,
  type PlatformEmoji,
  type PlatformImage,
  type PlatformRole,
  type PlatformSticker,
  INCOMING_WEBHOOK,
  type PlatformWebhook,
} from '@lib/chat-platform';
import type {
  SnapshotEmoji,
  SnapshotExpressions,
  SnapshotPayload,
  SnapshotSticker,
  SnapshotWebhook,
} from '../snapshot-payload';
import { type StoredImage, storedImage } from './image-store';

/** Where each image of a guild came from, so the next snapshot need not read it again. */
type ImageKey =
  | `emoji:${string}`
  | `sticker:${string}`
  | `${GuildImageSlot}:${string}`
  | `role_icon:${string}:${string}`
  | `webhook:${string}:${string}`;

/**
 * What a snapshot keeps of the guild's expressions and images: the parts of the payload (images
 * named by digest), and the images to store. `kept` are images the guild's last snapshot holds
 * already (an emoji's or sticker's image never changes; a guild image has a new hash when it
 * does), by digest only; `fetched` were read from the CDN now, with their bytes.
 */
export interface ReadExpressions {
  parts: SnapshotExpressions;
  fetched: StoredImage[];
  kept: string[];
  /** Why some images are left out (unreadable, over the quota), if any were. */
  imagesOmitted?: string;
  /** Why the webhooks are left out (the bot may not read them), if they are. */
  webhooksOmitted?: string;
}

export const IMAGES_UNREADABLE = 'some images could not be read from the platform’s CDN';
export const WEBHOOKS_UNREADABLE =
  'the bot may not read the webhooks (it needs the Manage Webhooks permission)';
export const EXPRESSIONS_UNREADABLE =
  'the bot may not read the emojis and stickers (it needs the Create or Manage Expressions permission)';

/**
 * Reads the guild's custom emojis and stickers (without the managed ones an integration owns:
 * those come back with the integration), its incoming webhooks (SnapshotWebhook: the other types
 * a bot cannot make), and the images of them, of the guild and of its roles' icons (`roles`: the
 * guild's roles as read; an integration's role is left out, as a restore leaves it), each image
 * once.
 */
export async function readGuildExpressions(
  platform: ChatPlatformClient,
  guild: GuildSettings,
  previous: SnapshotPayload | null,
  roles: readonly PlatformRole[] = [],
): Promise<ReadExpressions | { unreadable: string }> {
  let emojis: PlatformEmoji[];
  let stickers: PlatformSticker[];
  try {
    [emojis, stickers] = await Promise.all([platform.listEmojis(guild.id), platform.listStickers(guild.id)]);
  } catch (error) {
    if (isChatPlatformError(error) && error.code === 'PermissionDenied')
      return { unreadable: EXPRESSIONS_UNREADABLE };
    throw error;
  }
  const known = knownDigests(previous);
  const fetched: StoredImage[] = [];
  const kept = new Set<string>();
  const failures: unknown[] = [];
  const digestOf = async (key: ImageKey, read: () => Promise<PlatformImage>): Promise<string | null> => {
    const digest = known.get(key);
    if (digest) {
      kept.add(digest);
      return digest;
    }
    try {
      const image = storedImage(await read());
      fetched.push(image);
      return image.digest;
    } catch (error) {
      if (!isChatPlatformError(error)) throw error;
      failures.push(error);
      return null;
    }
  };
  const ownEmojis = emojis.filter((emoji) => !emoji.managed);
  // One after another: the CDN is outside the bot's rate limits, and a guild has at most a few
  // hundred images, most of them kept from the last snapshot.
  const snapshotEmojis: SnapshotEmoji[] = [];
  for (const { id, name, animated, roles } of ownEmojis) {
    const image = await digestOf(`emoji:${id}`, () =>
      platform.readEmojiImage({ id, name, animated, roles, managed: false }),
    );
    snapshotEmojis.push({ id, name, animated, roles, image });
  }
  const snapshotStickers: SnapshotSticker[] = [];
  for (const sticker of stickers) {
    const image = await digestOf(`sticker:${sticker.id}`, () => platform.readStickerImage(sticker));
    snapshotStickers.push({ ...sticker, image });
  }
  const guildImages: SnapshotExpressions['guild_images'] = {};
  for (const slot of GUILD_IMAGE_SLOTS) {
    const hash = guild[slot];
    if (!hash) continue;
    const digest = await digestOf(`${slot}:${hash}`, () => platform.readGuildImage(guild.id, slot, hash));
    if (digest) guildImages[slot] = digest;
  }
  const roleIcons: Record<string, string> = {};
  for (const role of roles) {
    const hash = role.icon;
    if (!hash || role.managed) continue;
    const digest = await digestOf(`role_icon:${role.id}:${hash}`, () => platform.readRoleIcon(role.id, hash));
    if (digest) roleIcons[role.id] = digest;
  }
  const webhooks = await readWebhooks(platform, guild.id);
  let snapshotWebhooks: SnapshotWebhook[] | undefined;
  if (webhooks) {
    snapshotWebhooks = [];
    for (const { id, channel_id, name, avatar } of webhooks) {
      const image = avatar
        ? await digestOf(`webhook:${id}:${avatar}`, () => platform.readWebhookAvatar({ id, avatar }))
        : null;
      snapshotWebhooks.push({ id, channel_id, name, avatar, image });
    }
  }
  return {
    parts: {
      emojis: snapshotEmojis,
      stickers: snapshotStickers,
      guild_images: guildImages,
      role_icons: roleIcons,
      ...(snapshotWebhooks && { webhooks: snapshotWebhooks }),
    },
    fetched,
    kept: [...kept],
    ...(failures.length > 0 && { imagesOmitted: IMAGES_UNREADABLE }),
    ...(!webhooks && { webhooksOmitted: WEBHOOKS_UNREADABLE }),
  };
}

/** The guild's incoming webhooks; undefined when the bot may not read them (Manage Webhooks). */
async function readWebhooks(
  platform: ChatPlatformClient,
  guildId: string,
): Promise<PlatformWebhook[] | undefined> {
  try {
    const webhooks = await platform.listWebhooks(guildId);
    return webhooks.filter((webhook) => webhook.type === INCOMING_WEBHOOK);
  } catch (error) {
    if (isChatPlatformError(error) && error.code === 'PermissionDenied') return undefined;
    throw error;
  }
}

/** The digests the guild's last snapshot names, by where each image came from. */
function knownDigests(previous: SnapshotPayload | null): Map<ImageKey, string> {
  const known = new Map<ImageKey, string>();
  if (!previous) return known;
  for (const emoji of previous.emojis ?? []) if (emoji.image) known.set(`emoji:${emoji.id}`, emoji.image);
  for (const sticker of previous.stickers ?? [])
    if (sticker.image) known.set(`sticker:${sticker.id}`, sticker.image);
  for (const slot of GUILD_IMAGE_SLOTS) {
    const hash = previous.guild[slot];
    const digest = previous.guild_images?.[slot];
    if (hash && digest) known.set(`${slot}:${hash}`, digest);
  }
  for (const role of previous.roles) {
    const digest = previous.role_icons?.[role.id];
    if (role.icon && digest) known.set(`role_icon:${role.id}:${role.icon}`, digest);
  }
  for (const webhook of previous.webhooks ?? [])
    if (webhook.avatar && webhook.image) known.set(`webhook:${webhook.id}:${webhook.avatar}`, webhook.image);
  return known;
}
