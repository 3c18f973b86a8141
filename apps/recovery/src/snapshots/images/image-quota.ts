import { GUILD_IMAGE_SLOTS } from '@lib/chat-platform';
import type { ReadExpressions } from './guild-expressions.reader';

export const OVER_IMAGE_QUOTA = (limit: number) =>
  `the guild’s snapshots would hold more than the plan’s ${limit} bytes of images with them`;

/**
 * The read expressions with as many new images as the guild's quota has room for: `used` bytes
 * held already, `limit` the plan's. Images are taken in the order a restore needs them least
 * last: the guild's own images, then its roles' icons (in the roles' order), then emojis, then
 * stickers, then webhooks' avatars, each in id order; those that do not fit are named null in the payload (a guild image
 * or role icon is left out of its map; a restore reports them, and makes nothing without an
 * image), and not stored. Images the guild holds already cost nothing. The rest of the parts (AutoMod
 * rules, welcome screen, onboarding) are kept as they are.
 */
export function fitImageQuota(read: ReadExpressions, used: number, limit: number): ReadExpressions {
  const sizes = new Map(read.fetched.map((image) => [image.digest, image.bytes.length]));
  const order = [
    ...GUILD_IMAGE_SLOTS.map((slot) => read.parts.guild_images[slot]),
    ...Object.values(read.parts.role_icons ?? {}),
    ...read.parts.emojis.map((emoji) => emoji.image),
    ...read.parts.stickers.map((sticker) => sticker.image),
    ...(read.parts.webhooks ?? []).map((webhook) => webhook.image),
  ];
  const admitted = new Set<string>();
  let total = used;
  for (const digest of order) {
    if (!digest || admitted.has(digest)) continue;
    const size = sizes.get(digest) ?? 0;
    if (total + size > limit) continue;
    total += size;
    admitted.add(digest);
  }
  const dropped = read.fetched.filter((image) => !admitted.has(image.digest));
  if (dropped.length === 0) return read;
  const keep = (digest: string | null) => (digest !== null && admitted.has(digest) ? digest : null);
  const admittedOnly = <T extends Record<string, string | undefined>>(images: T): T =>
    Object.fromEntries(Object.entries(images).filter(([, digest]) => digest && admitted.has(digest))) as T;
  return {
    parts: {
      // The parts without images (AutoMod rules, welcome screen, onboarding) as read.
      ...read.parts,
      emojis: read.parts.emojis.map((emoji) => ({ ...emoji, image: keep(emoji.image) })),
      stickers: read.parts.stickers.map((sticker) => ({ ...sticker, image: keep(sticker.image) })),
      guild_images: admittedOnly(read.parts.guild_images),
      ...(read.parts.role_icons && { role_icons: admittedOnly(read.parts.role_icons) }),
      ...(read.parts.webhooks && {
        webhooks: read.parts.webhooks.map((webhook) => ({ ...webhook, image: keep(webhook.image) })),
      }),
    },
    fetched: read.fetched.filter((image) => admitted.has(image.digest)),
    kept: read.kept,
    imagesOmitted: OVER_IMAGE_QUOTA(limit),
    ...(read.webhooksOmitted && { webhooksOmitted: read.webhooksOmitted }),
  };
}
