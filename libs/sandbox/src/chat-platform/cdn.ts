import type { ExpressionImage } from './expression-images';
import { CDN_FOLDERS, type ImageOwnerKind } from './guild-images';
import { PlatformHttpError, platformError } from './platform-error';
import type { PlatformStore } from './platform-store';

/**
 * Where the fake serves what the platform's CDN (`https://cdn.discordapp.com`, a host of its own)
 * serves: under this path of the fake's own server, so `${fake.cdnUrl}/emojis/{id}.png` stands for
 * `https://cdn.discordapp.com/emojis/{id}.png`. No authentication, as on the CDN.
 */
export const CDN_PATH = '/cdn';

/**
 * The extensions the CDN offers per object (reference, "Image Formatting", "CDN Endpoints"): a
 * custom emoji as PNG, JPEG, WebP, GIF or AVIF; a sticker as PNG (format PNG or APNG), GIF (format
 * GIF) or Lottie JSON (format LOTTIE), each only in its own format. (The docs add that sticker GIFs
 * live on `media.discordapp.net` rather than the CDN's host; the fake serves them here too.)
 */
const EMOJI_EXTENSIONS = ['png', 'jpg', 'jpeg', 'webp', 'gif', 'avif'];
const STICKER_EXTENSION_BY_FORMAT: Record<number, string> = { 1: 'png', 2: 'png', 3: 'json', 4: 'gif' };

/**
 * A guild's icon and banner as PNG, JPEG, WebP or GIF (GIF only for an `a_` hash, one "available in
 * an animated format"); its splash, discovery splash and a role's icon as PNG, JPEG or WebP.
 */
const STILL_EXTENSIONS = ['png', 'jpg', 'jpeg', 'webp'];
const OWNED_IMAGE_EXTENSIONS: Record<ImageOwnerKind, readonly string[]> = {
  icon: [...STILL_EXTENSIONS, 'gif'],
  banner: [...STILL_EXTENSIONS, 'gif'],
  splash: STILL_EXTENSIONS,
  discovery_splash: STILL_EXTENSIONS,
  role_icon: STILL_EXTENSIONS,
};
const KIND_BY_FOLDER = new Map(
  (Object.entries(CDN_FOLDERS) as [ImageOwnerKind, string][]).map(([kind, folder]) => [folder, kind]),
);
const OWNED_IMAGE_PATH =
  /^\/cdn\/(icons|banners|splashes|discovery-splashes|role-icons)\/(\d{1,20})\/((?:a_)?[0-9a-f]{32})\.([a-z]+)$/;

const unsupportedMediaType = () => new PlatformHttpError(415, 0, '415: Unsupported Media Type');
const badSize = () => new PlatformHttpError(400, 0, '400: Bad Request');

/** A webhook's avatar ("User Avatar" in "CDN Endpoints"): PNG, JPEG, WebP, and GIF when it moves (`a_`). */
const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'webp', 'gif'];

/** The route template of a CDN path, for the request log; undefined for a path the CDN does not serve. */
export function cdnRoute(pathname: string): string | undefined {
  if (/^\/cdn\/avatars\/[^/]+\/[^/]+$/.test(pathname)) return `${CDN_PATH}/avatars/{id}/{hash}.{extension}`;
  const match = /^\/cdn\/(emojis|stickers)\/[^/]+$/.exec(pathname);
  if (match) return `${CDN_PATH}/${match[1]}/{id}.{extension}`;
  const owned = /^\/cdn\/(icons|banners|splashes|discovery-splashes|role-icons)\/[^/]+\/[^/]+$/.exec(
    pathname,
  );
  if (!owned) return undefined;
  const owner = owned[1] === 'role-icons' ? 'role_id' : 'guild_id';
  return `${CDN_PATH}/${owned[1]}/{${owner}}/{hash}.{extension}`;
}

/**
 * `?size=`: "any power of two between 16 and 4096" (reference, "Image Formatting"). The fake
 * serves the image as uploaded whatever the size; a size outside the documented ones is refused
 * with 400 (what the CDN answers is undocumented; refusing is the stricter reading). The sticker
 * endpoint ignores it, as the docs say.
 */
function checkSize(query: URLSearchParams): void {
  const size = query.get('size');
  if (size === null) return;
  const value = Number(size);
  if (!/^\d{2,4}$/.test(size) || value < 16 || value > 4096 || (value & (value - 1)) !== 0) throw badSize();
}

/**
 * A webhook's avatar at `avatars/{webhook_id}/{hash}.{extension}`, served like an emoji's image:
 * exactly as uploaded; only its current hash (an avatar replaced or a webhook deleted is 404).
 */
function webhookAvatar(pathname: string, store: PlatformStore): ExpressionImage | undefined {
  const match = /^\/cdn\/avatars\/(\d{1,20})\/((?:a_)?[0-9a-f]{32})\.([a-z]+)$/.exec(pathname);
  if (!match) return undefined;
  const [, webhookId, hash, extension] = match;
  const image = store.webhookAvatars.image(webhookId, hash);
  if (!image || !store.webhooks.has(webhookId)) throw platformError.notFound();
  if (!AVATAR_EXTENSIONS.includes(extension)) throw unsupportedMediaType();
  if (extension === 'gif' && !hash.startsWith('a_')) throw unsupportedMediaType();
  return image;
}

/**
 * The bytes the CDN answers a GET of `pathname` with: the image exactly as uploaded, with the
 * content type of what it is. The CDN converts an image to the format an extension asks for (and
 * resizes it for `?size=`); the fake converts nothing, so a client must go by the answer's
 * Content-Type, not by the extension it asked for. An extension the object is not offered in
 * (GIF of an emoji that does not move, a sticker outside its own format) is refused with 415, the
 * stricter reading of what the docs leave unsaid; an unknown or deleted object is 404.
 */
export function cdnAsset(
  pathname: string,
  store: PlatformStore,
  query: URLSearchParams = new URLSearchParams(),
): ExpressionImage {
  const owned = OWNED_IMAGE_PATH.exec(pathname);
  if (owned) {
    checkSize(query);
    return ownedImage(store, KIND_BY_FOLDER.get(owned[1])!, owned[2], owned[3], owned[4]);
  }
  const avatar = webhookAvatar(pathname, store);
  if (avatar) return avatar;
  const match = /^\/cdn\/(emojis|stickers)\/(\d{1,20})\.([a-z]+)$/.exec(pathname);
  if (!match) throw platformError.notFound();
  const [, kind, id, extension] = match;
  const image = store.expressions.image(id);
  if (!image) throw platformError.notFound();
  if (kind === 'emojis') {
    checkSize(query);
    const emoji = findEmoji(store, id);
    if (!emoji) throw platformError.notFound();
    if (!EMOJI_EXTENSIONS.includes(extension)) throw unsupportedMediaType();
    if (extension === 'gif' && !emoji.animated) throw unsupportedMediaType();
    return image;
  }
  const sticker = findSticker(store, id);
  if (!sticker) throw platformError.notFound();
  if (STICKER_EXTENSION_BY_FORMAT[sticker.format_type] !== extension) throw unsupportedMediaType();
  return image;
}

/**
 * A guild image or role icon at its current hash: the guild (or the role) must exist and still
 * show that hash, so a replaced or removed image is 404. The bytes are served as uploaded, whatever
 * extension was asked for among those the endpoint offers (the CDN converts; the fake does not, so
 * a client goes by the answer's Content-Type).
 */
function ownedImage(
  store: PlatformStore,
  kind: ImageOwnerKind,
  ownerId: string,
  hash: string,
  extension: string,
): ExpressionImage {
  const current = kind === 'role_icon' ? roleIconHash(store, ownerId) : store.guilds.get(ownerId)?.[kind];
  const image = current === hash ? store.images.get(kind, ownerId, hash) : undefined;
  if (!image) throw platformError.notFound();
  if (!OWNED_IMAGE_EXTENSIONS[kind].includes(extension)) throw unsupportedMediaType();
  if (extension === 'gif' && !hash.startsWith('a_')) throw unsupportedMediaType();
  return image;
}

function roleIconHash(store: PlatformStore, roleId: string): string | null | undefined {
  for (const guild of store.guilds.values()) {
    const role = guild.roles.find((candidate) => candidate.id === roleId);
    if (role) return role.icon;
  }
  return undefined;
}

function findEmoji(store: PlatformStore, id: string) {
  for (const guildId of store.guilds.keys()) {
    const emoji = store.expressions.emojis(guildId).find((candidate) => candidate.id === id);
    if (emoji) return emoji;
  }
  return undefined;
}

function findSticker(store: PlatformStore, id: string) {
  for (const guildId of store.guilds.keys()) {
    const sticker = store.expressions.stickers(guildId).find((candidate) => candidate.id === id);
    if (sticker) return sticker;
  }
  return undefined;
}
