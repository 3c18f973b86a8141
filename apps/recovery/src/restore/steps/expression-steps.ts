import { imageDataUri, isChatPlatformError, type PlatformImage } from '@lib/chat-platform';
import { storedImage } from '../../snapshots/images/image-store';
import type { SnapshotEmoji, SnapshotSticker } from '../../snapshots/snapshot-payload';
import type { StepOutcome } from '../workflows/restore-contract';
import { RESTORE_BATCH_SIZE, runConcurrently } from './concurrency';
import { waitedFor } from './platform-wait';
import { goneIsDone } from './removal-steps';
import { NOTHING, reason, type StepContext, type StepHandler } from './step-context';

/**
 * RestoreEmojis: the emojis the snapshot does not have deleted first (they free the slots the
 * missing ones need), then the missing ones made from their kept images and the changed ones
 * renamed or given their roles back, a batch per call. An emoji an earlier attempt made (the worker
 * died before its new id was recorded) shows as one to delete with the name and the image of one to
 * make: it is taken over instead of made twice (a raider's upload under the same name has another
 * image, and goes). An emoji naming a role the roles step beside it has not made
 * yet waits for a later call.
 */
export const restoreEmojis: StepHandler = async (platform, context) => {
  const { diff, target } = context.comparison;
  const snapshotEmojis = new Map((target.emojis ?? []).map((emoji) => [emoji.id, emoji]));
  const plan = await adoptOrphans(
    diff.emojis_to_create ?? [],
    diff.emojis_to_delete ?? [],
    async (wanted, orphan) =>
      wanted.name === orphan.name &&
      wanted.animated === orphan.animated &&
      (await sameImage(snapshotEmojis.get(wanted.id)?.image, () =>
        platform.readEmojiImage({ ...orphan, managed: false }),
      )),
  );
  const removed = await deleteFirst(plan.deletes, (emoji) =>
    platform.deleteEmoji(context.platformGuildId, emoji.id, reason(context)),
  );
  if (removed)
    return { ...removed, remaining: removed.remaining + plan.work + (diff.emojis_to_update?.length ?? 0) };

  const ready = (emoji: SnapshotEmoji) => rolesOf(context, emoji.roles) !== undefined;
  const creates = plan.creates.map((item) => snapshotEmojis.get(item.id)!);
  const updates = (diff.emojis_to_update ?? []).filter((update) =>
    ready(snapshotEmojis.get(update.target.id)!),
  );
  const createBatch = creates.filter(ready).slice(0, RESTORE_BATCH_SIZE);
  const images = await context.readImages(createBatch.map((emoji) => emoji.image!));
  let created = 0;
  let updated = 0;
  const pause = waitedFor(
    await Promise.allSettled([
      runConcurrently(createBatch, async (emoji) => {
        const roles = rolesOf(context, emoji.roles)!;
        const orphan = plan.adopted.get(emoji.id);
        const made = orphan
          ? await platform.updateEmoji(
              context.platformGuildId,
              orphan.id,
              { name: emoji.name, roles },
              reason(context),
            )
          : await platform.createEmoji(
              context.platformGuildId,
              { name: emoji.name, roles, image: imageDataUri(images.get(emoji.image!)!) },
              reason(context),
            );
        await context.recordReplacement('emoji', emoji.id, made.id);
        created++;
      }),
      runConcurrently(updates.slice(0, RESTORE_BATCH_SIZE), async (update) => {
        const emoji = snapshotEmojis.get(update.target.id)!;
        await platform.updateEmoji(
          context.platformGuildId,
          update.current.id,
          { name: emoji.name, roles: rolesOf(context, emoji.roles)! },
          reason(context),
        );
        updated++;
      }),
    ]),
  );
  const left = creates.length + (diff.emojis_to_update?.length ?? 0) - created - updated;
  return { ...NOTHING, created, updated, remaining: left, ...(pause && { pause }) };
};

/** RestoreStickers: as RestoreEmojis, for stickers (uploaded as files; they name no roles). */
export const restoreStickers: StepHandler = async (platform, context) => {
  const { diff, target } = context.comparison;
  const snapshotStickers = new Map((target.stickers ?? []).map((sticker) => [sticker.id, sticker]));
  const plan = await adoptOrphans(
    diff.stickers_to_create ?? [],
    diff.stickers_to_delete ?? [],
    async (wanted, orphan) =>
      wanted.name === orphan.name &&
      wanted.format_type === orphan.format_type &&
      (await sameImage(snapshotStickers.get(wanted.id)?.image, () => platform.readStickerImage(orphan))),
  );
  const removed = await deleteFirst(plan.deletes, (sticker) =>
    platform.deleteSticker(context.platformGuildId, sticker.id, reason(context)),
  );
  if (removed)
    return { ...removed, remaining: removed.remaining + plan.work + (diff.stickers_to_update?.length ?? 0) };

  const creates = plan.creates.map((item) => snapshotStickers.get(item.id)!);
  const updates = diff.stickers_to_update ?? [];
  const createBatch = creates.slice(0, RESTORE_BATCH_SIZE);
  const images = await context.readImages(createBatch.map((sticker) => sticker.image!));
  let created = 0;
  let updated = 0;
  const pause = waitedFor(
    await Promise.allSettled([
      runConcurrently(createBatch, async (sticker) => {
        const orphan = plan.adopted.get(sticker.id);
        const made = orphan
          ? await platform.updateSticker(
              context.platformGuildId,
              orphan.id,
              stickerFields(sticker),
              reason(context),
            )
          : await platform.createSticker(
              context.platformGuildId,
              { ...stickerFields(sticker), file: images.get(sticker.image!)! },
              reason(context),
            );
        await context.recordReplacement('sticker', sticker.id, made.id);
        created++;
      }),
      runConcurrently(updates.slice(0, RESTORE_BATCH_SIZE), async (update) => {
        const sticker = snapshotStickers.get(update.target.id)!;
        await platform.updateSticker(
          context.platformGuildId,
          update.current.id,
          stickerFields(sticker),
          reason(context),
        );
        updated++;
      }),
    ]),
  );
  const left = creates.length + updates.length - created - updated;
  return { ...NOTHING, created, updated, remaining: left, ...(pause && { pause }) };
};

function stickerFields(sticker: SnapshotSticker): { name: string; description: string; tags: string } {
  return { name: sticker.name, description: sticker.description ?? '', tags: sticker.tags };
}

/**
 * The live role ids of an emoji's snapshot roles; undefined while one of them is still to be made
 * by the roles step running beside (it waits for a later call). A role that exists nowhere and is
 * not being made (its scope not restored) is left out.
 */
function rolesOf(context: StepContext, roles: readonly string[]): string[] | undefined {
  const live: string[] = [];
  for (const role of roles) {
    const id = context.comparison.ids.resolve('role', role);
    if (id !== undefined) live.push(id);
    else if (context.awaiting.length > 0 && context.preview.roles_to_create.some((item) => item.id === role))
      return undefined;
  }
  return live;
}

/**
 * Pairs each item to make with a live one to delete that an earlier attempt made for it (`same`),
 * which is then taken over rather than deleted; the rest of the deletes, and `work`: the creates.
 */
async function adoptOrphans<T extends { id: string }>(
  creates: readonly T[],
  deletes: readonly T[],
  same: (wanted: T, orphan: T) => Promise<boolean>,
): Promise<{ creates: T[]; deletes: T[]; adopted: Map<string, T>; work: number }> {
  const free = [...deletes];
  const adopted = new Map<string, T>();
  for (const wanted of creates) {
    for (const [index, orphan] of free.entries()) {
      if (!(await same(wanted, orphan))) continue;
      adopted.set(wanted.id, orphan);
      free.splice(index, 1);
      break;
    }
  }
  return { creates: [...creates], deletes: free, adopted, work: creates.length };
}

/** Whether the live item's image (read from the CDN) is the kept one of `digest`. */
async function sameImage(
  digest: string | null | undefined,
  read: () => Promise<PlatformImage>,
): Promise<boolean> {
  if (!digest) return false;
  try {
    return storedImage(await read()).digest === digest;
  } catch (error) {
    if (isChatPlatformError(error)) return false;
    throw error;
  }
}

/** Deletes a batch of `items` (one gone already counts); null when there were none to delete. */
async function deleteFirst<T>(
  items: readonly T[],
  remove: (item: T) => Promise<unknown>,
): Promise<StepOutcome | null> {
  if (items.length === 0) return null;
  const batch = items.slice(0, RESTORE_BATCH_SIZE);
  await runConcurrently(batch, (item) => goneIsDone(remove(item)));
  return { ...NOTHING, deleted: batch.length, remaining: items.length - batch.length };
}
