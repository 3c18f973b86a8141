import { createHash } from 'node:crypto';
import {
  type ExpressionImage,
  type ImageKind,
  CONTENT_TYPES,
  imageKind,
  isAnimated,
} from './expression-images';

/**
 * The images a guild shows beside its emojis and stickers: its icon, banner, invite splash and
 * discovery splash, and its roles' icons. The guild and role objects carry each as a hash
 * (reference, "Image Formatting"); the CDN serves the bytes under a path naming the owner and the
 * hash, e.g. `icons/{guild_id}/{hash}.png`.
 */

/** A guild's image fields, as the guild object and Modify Guild name them. */
export const GUILD_IMAGE_FIELDS = ['icon', 'banner', 'splash', 'discovery_splash'] as const;
export type GuildImageField = (typeof GUILD_IMAGE_FIELDS)[number];

/** The CDN's folder of each kind of image (reference, "CDN Endpoints"). */
export const CDN_FOLDERS = {
  icon: 'icons',
  banner: 'banners',
  splash: 'splashes',
  discovery_splash: 'discovery-splashes',
  role_icon: 'role-icons',
} as const;
export type ImageOwnerKind = keyof typeof CDN_FOLDERS;

/**
 * An image's hash: an opaque hex string of its bytes (the platform's are 32 hex digits, as this
 * MD5 is), prefixed `a_` when the image moves, as the platform marks the hashes it serves as GIF
 * ("CDN Endpoints": "the hash will begin with `a_` if it is available in an animated format").
 */
export function imageHash(bytes: Buffer, animated: boolean): string {
  const hex = createHash('md5').update(bytes).digest('hex');
  return animated ? `a_${hex}` : hex;
}

/** An image of bytes the fake reads itself, its hash and whether it moves; undefined if not an image. */
export function describeImage(
  bytes: Buffer,
): { image: ExpressionImage; kind: ImageKind; animated: boolean; hash: string } | undefined {
  const kind = imageKind(bytes);
  if (!kind) return undefined;
  // Only a GIF moves on the CDN; an animated PNG is served as its still image.
  const animated = kind === 'gif' && isAnimated(bytes, kind);
  return {
    image: { bytes, contentType: CONTENT_TYPES[kind] },
    kind,
    animated,
    hash: imageHash(bytes, animated),
  };
}

/**
 * The bytes behind each guild image and role icon there is, by the CDN path of its folder, owner
 * (a guild's id, or a role's) and hash. Replacing or removing an image forgets the old bytes: the
 * CDN stops serving the old hash (the platform's CDN may keep serving it for a while; the fake
 * takes the stricter reading, so nothing can rely on an image that was replaced).
 */
export class GuildImages {
  private readonly byPath = new Map<string, ExpressionImage>();
  /** The current hash of each owner's image of a kind, by `folder/owner`. */
  private readonly current = new Map<string, string>();

  get(kind: ImageOwnerKind, ownerId: string, hash: string): ExpressionImage | undefined {
    return this.current.get(slot(kind, ownerId)) === hash
      ? this.byPath.get(`${slot(kind, ownerId)}/${hash}`)
      : undefined;
  }

  /** Puts the owner's image of this kind in place (null removes it). */
  set(kind: ImageOwnerKind, ownerId: string, image: { hash: string; image: ExpressionImage } | null): void {
    this.drop(kind, ownerId);
    if (!image) return;
    this.current.set(slot(kind, ownerId), image.hash);
    this.byPath.set(`${slot(kind, ownerId)}/${image.hash}`, image.image);
  }

  drop(kind: ImageOwnerKind, ownerId: string): void {
    const hash = this.current.get(slot(kind, ownerId));
    if (hash === undefined) return;
    this.byPath.delete(`${slot(kind, ownerId)}/${hash}`);
    this.current.delete(slot(kind, ownerId));
  }

  /** Forgets a guild's images and its roles' icons. */
  dropGuild(guildId: string, roleIds: readonly string[]): void {
    for (const field of GUILD_IMAGE_FIELDS) this.drop(field, guildId);
    for (const roleId of roleIds) this.drop('role_icon', roleId);
  }

  clear(): void {
    this.byPath.clear();
    this.current.clear();
  }
}

function slot(kind: ImageOwnerKind, ownerId: string): string {
  return `${CDN_FOLDERS[kind]}/${ownerId}`;
}
