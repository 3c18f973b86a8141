import type { APIEmoji, APISticker } from 'discord-api-types/v10';

/**
 * A guild's custom emojis and stickers, and its images, as the service keeps them. An emoji's or
 * sticker's image never changes on the platform (only names, roles, description and tags can be
 * edited), so an item matched by id has the image it had; images are read from the platform's CDN.
 */

/** A custom emoji of the guild. `roles`: the roles allowed to use it; empty for everyone. */
export interface PlatformEmoji {
  id: string;
  name: string;
  animated: boolean;
  roles: string[];
  /** Owned by an integration (a subscription service's emojis): it cannot be made or deleted. */
  managed: boolean;
}

/** Sticker formats (the platform's `format_type`): 1 PNG, 2 APNG, 3 Lottie, 4 GIF. */
export const STICKER_FORMAT = { png: 1, apng: 2, lottie: 3, gif: 4 } as const;

/** A guild sticker. `tags`: the platform's autocomplete text (a comma-separated list, free text). */
export interface PlatformSticker {
  id: string;
  name: string;
  description: string | null;
  tags: string;
  format_type: number;
}

/** The guild's own images, by the field that holds each one's hash on the guild object. */
export const GUILD_IMAGE_SLOTS = ['icon', 'banner', 'splash', 'discovery_splash'] as const;
export type GuildImageSlot = (typeof GUILD_IMAGE_SLOTS)[number];

/** An image as read from the CDN: its bytes and the content type the CDN answered. */
export interface PlatformImage {
  bytes: Buffer;
  content_type: string;
}

/** A new emoji: its image is a data URI (`data:image/png;base64,...`), at most 256 KiB. */
export interface EmojiInput {
  name: string;
  image: string;
  roles: string[];
}

export type EmojiUpdate = Partial<Pick<PlatformEmoji, 'name' | 'roles'>>;

/** A new sticker: its file goes as multipart form data, at most 512 KiB. */
export interface StickerInput {
  name: string;
  description: string;
  tags: string;
  file: PlatformImage;
}

export type StickerUpdate = Partial<Pick<PlatformSticker, 'name' | 'description' | 'tags'>>;

export function toPlatformEmoji(emoji: APIEmoji): PlatformEmoji {
  return {
    id: emoji.id ?? '',
    name: emoji.name ?? '',
    animated: emoji.animated ?? false,
    roles: [...(emoji.roles ?? [])].sort(),
    managed: emoji.managed ?? false,
  };
}

export function toPlatformSticker(sticker: APISticker): PlatformSticker {
  return {
    id: sticker.id,
    name: sticker.name,
    description: sticker.description ?? null,
    tags: sticker.tags,
    format_type: sticker.format_type,
  };
}

/** The image as a data URI, as the platform takes an emoji or a guild image. */
export function imageDataUri(image: PlatformImage): string {
  return `data:${image.content_type};base64,${image.bytes.toString('base64')}`;
}
