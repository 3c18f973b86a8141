import { imageDataUri } from '@lib/chat-platform';
import { NOTHING, reason, type StepHandler } from './step-context';

/**
 * RestoreGuildImages: the guild's icon, banner and splashes put back from their kept images (or
 * removed) in one call. The platform names each upload with a new hash, recorded as the
 * snapshot's hash's replacement, so a later comparison sees the image as restored.
 */
export const restoreGuildImages: StepHandler = async (platform, context) => {
  const { diff, target } = context.comparison;
  const items = diff.guild_images_to_set ?? [];
  if (items.length === 0) return NOTHING;
  const digests = items.flatMap((item) => (item.target === null ? [] : [target.guild_images![item.slot]!]));
  const images = await context.readImages(digests);
  const update: Record<string, string | null> = {};
  for (const item of items) {
    update[item.slot] =
      item.target === null ? null : imageDataUri(images.get(target.guild_images![item.slot]!)!);
  }
  const guild = await platform.updateGuildSettings(context.platformGuildId, update, reason(context));
  for (const item of items) {
    const now = guild[item.slot];
    if (item.target !== null && now) await context.recordReplacement('image', item.target, now);
  }
  return { ...NOTHING, updated: items.length };
};
