import type { ExpressionImage } from './expression-images';
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

const unsupportedMediaType = () => new PlatformHttpError(415, 0, '415: Unsupported Media Type');

/** A webhook's avatar ("User Avatar" in "CDN Endpoints"): PNG, JPEG, WebP, and GIF when it moves (`a_`). */
const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'webp', 'gif'];

/** The route template of a CDN path, for the request log; undefined for a path the CDN does not serve. */
export function cdnRoute(pathname: string): string | undefined {
  if (/^\/cdn\/avatars\/[^/]+\/[^/]+$/.test(pathname)) return `${CDN_PATH}/avatars/{id}/{hash}.{extension}`;
  const match = /^\/cdn\/(emojis|stickers)\/[^/]+$/.exec(pathname);
  return match ? `${CDN_PATH}/${match[1]}/{id}.{extension}` : undefined;
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
export function cdnAsset(pathname: string, store: PlatformStore): ExpressionImage {
  const avatar = webhookAvatar(pathname, store);
  if (avatar) return avatar;
  const match = /^\/cdn\/(emojis|stickers)\/(\d{1,20})\.([a-z]+)$/.exec(pathname);
  if (!match) throw platformError.notFound();
  const [, kind, id, extension] = match;
  const image = store.expressions.image(id);
  if (!image) throw platformError.notFound();
  if (kind === 'emojis') {
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
