import {
  emojiSlots,
  GUILD_IMAGE_SLOTS,
  guildImageRefusal,
  hasPermission,
  mayUploadLottie,
  PERMISSION,
  type PlatformEmoji,
  type PlatformSticker,
  STICKER_FORMAT,
  stickerSlots,
} from '@lib/chat-platform';
import type { RestoreScope } from '@lib/contracts';
import type { SnapshotEmoji, SnapshotSticker } from '../../snapshots/snapshot-payload';
import {
  type DiffInput,
  type EmojiItem,
  type GuildImageItem,
  type RestoreDiff,
  SKIP_REASON,
  type SkippedItem,
  type StickerItem,
  type UpdateItem,
} from './diff-model';
import type { LiveLookup } from './live-lookup';
import { compareIds } from './ordering';

type EmojiSection = Required<
  Pick<RestoreDiff, 'emojis_to_create' | 'emojis_to_update' | 'emojis_to_delete'>
> & {
  skipped: SkippedItem[];
};
type StickerSection = Required<
  Pick<RestoreDiff, 'stickers_to_create' | 'stickers_to_update' | 'stickers_to_delete'>
> & { skipped: SkippedItem[] };

const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);

/** The emoji fields a restore compares and puts back (its image never changes). */
export const RESTORED_EMOJI_FIELDS = ['name', 'roles'] as const;
export const RESTORED_STICKER_FIELDS = ['name', 'description', 'tags'] as const;

function emojiItem({ id, name, animated, roles }: SnapshotEmoji | PlatformEmoji): EmojiItem {
  return { id, name, animated, roles: [...roles].sort(compareIds) };
}

function stickerItem({
  id,
  name,
  description,
  tags,
  format_type,
}: SnapshotSticker | PlatformSticker): StickerItem {
  return { id, name, description, tags, format_type };
}

/** A whole scope the restore cannot do, as one skipped entry. */
function wholeScope(scope: RestoreScope, reason: string): SkippedItem {
  return { scope, id: scope, name: scope, reason };
}

const MISSING_EXPRESSION_PERMISSIONS =
  'the bot lacks the Create Expressions and Manage Expressions permissions';

function mayManageExpressions(input: DiffInput): boolean {
  return (
    hasPermission(input.bot.permissions, PERMISSION.CREATE_GUILD_EXPRESSIONS) &&
    hasPermission(input.bot.permissions, PERMISSION.MANAGE_GUILD_EXPRESSIONS)
  );
}

/**
 * The snapshot's custom emojis against the live guild's: one matched by id (or by the id a restore
 * recreated it under) is renamed or given its roles back; one missing is made anew from its kept
 * image, as long as the guild's boost level has a slot for it (static and animated counted apart);
 * one the snapshot does not have is deleted. An integration's managed emojis are left alone.
 * `pendingRoles`: roles this restore makes, which an emoji's roles may name.
 */
export function diffEmojis(
  input: DiffInput,
  lookup: LiveLookup,
  pendingRoles: ReadonlySet<string>,
): EmojiSection {
  const section: EmojiSection = {
    emojis_to_create: [],
    emojis_to_update: [],
    emojis_to_delete: [],
    skipped: [],
  };
  const wanted = input.target.emojis;
  if (!wanted) return { ...section, skipped: [wholeScope('emojis', SKIP_REASON.expressionsNotInSnapshot)] };
  if (!mayManageExpressions(input))
    return { ...section, skipped: [wholeScope('emojis', MISSING_EXPRESSION_PERMISSIONS)] };
  const live = (input.expressions?.emojis ?? []).filter((emoji) => !emoji.managed);
  const liveById = new Map(live.map((emoji) => [emoji.id, emoji]));
  const matched = new Set<string>();
  const missing: SnapshotEmoji[] = [];
  for (const emoji of [...wanted].sort(byId)) {
    const liveId = input.ids.resolve('emoji', emoji.id);
    const current = liveId === undefined ? undefined : liveById.get(liveId);
    if (!current) {
      missing.push(emoji);
      continue;
    }
    matched.add(current.id);
    const changed: string[] = [];
    if (current.name !== emoji.name) changed.push('name');
    if (!sameRoles(emoji.roles, current.roles, lookup, pendingRoles)) changed.push('roles');
    if (changed.length > 0) {
      section.emojis_to_update.push({
        current: emojiItem(current),
        target: emojiItem(emoji),
        changed_fields: changed,
      });
    }
  }
  section.emojis_to_delete = live
    .filter((emoji) => !matched.has(emoji.id))
    .map(emojiItem)
    .sort(byId);
  const slots = emojiSlots(input.live.guild);
  const used = { static: 0, animated: 0 };
  for (const id of matched) used[liveById.get(id)!.animated ? 'animated' : 'static']++;
  for (const emoji of missing) {
    const kind = emoji.animated ? 'animated' : 'static';
    if (!emoji.image)
      section.skipped.push({
        scope: 'emojis',
        id: emoji.id,
        name: emoji.name,
        reason: SKIP_REASON.imageNotKept,
      });
    else if (used[kind] >= slots)
      section.skipped.push({
        scope: 'emojis',
        id: emoji.id,
        name: emoji.name,
        reason: SKIP_REASON.noFreeSlot,
      });
    else {
      used[kind]++;
      section.emojis_to_create.push(emojiItem(emoji));
    }
  }
  return section;
}

/**
 * An emoji's roles as the snapshot has them against the live ones: each snapshot role as its live
 * role; one this restore makes (`pendingRoles`) counts as a difference until it is made, and one
 * that exists nowhere (its role not restored) is left out of the comparison.
 */
function sameRoles(
  target: readonly string[],
  current: readonly string[],
  lookup: LiveLookup,
  pendingRoles: ReadonlySet<string>,
): boolean {
  if (target.some((role) => pendingRoles.has(role))) return false;
  const resolved = new Set(target.map((role) => lookup.role(role)?.id).filter((id) => id !== undefined));
  return resolved.size === current.length && current.every((role) => resolved.has(role));
}

/** As diffEmojis, for stickers: renamed or re-described in place, made anew from the kept file. */
export function diffStickers(input: DiffInput): StickerSection {
  const section: StickerSection = {
    stickers_to_create: [],
    stickers_to_update: [],
    stickers_to_delete: [],
    skipped: [],
  };
  const wanted = input.target.stickers;
  if (!wanted) return { ...section, skipped: [wholeScope('stickers', SKIP_REASON.expressionsNotInSnapshot)] };
  if (!mayManageExpressions(input))
    return { ...section, skipped: [wholeScope('stickers', MISSING_EXPRESSION_PERMISSIONS)] };
  const live = input.expressions?.stickers ?? [];
  const liveById = new Map(live.map((sticker) => [sticker.id, sticker]));
  const matched = new Set<string>();
  const missing: SnapshotSticker[] = [];
  for (const sticker of [...wanted].sort(byId)) {
    const liveId = input.ids.resolve('sticker', sticker.id);
    const current = liveId === undefined ? undefined : liveById.get(liveId);
    if (!current) {
      missing.push(sticker);
      continue;
    }
    matched.add(current.id);
    // An empty description is the platform's "none": a sticker made from one without answers "".
    const changed = RESTORED_STICKER_FIELDS.filter(
      (field) => (current[field] ?? '') !== (sticker[field] ?? ''),
    );
    if (changed.length > 0) {
      const update: UpdateItem<StickerItem> = {
        current: stickerItem(current),
        target: stickerItem(sticker),
        changed_fields: [...changed],
      };
      section.stickers_to_update.push(update);
    }
  }
  section.stickers_to_delete = live
    .filter((sticker) => !matched.has(sticker.id))
    .map(stickerItem)
    .sort(byId);
  let used = matched.size;
  const slots = stickerSlots(input.live.guild);
  for (const sticker of missing) {
    const skip = (reason: string) =>
      section.skipped.push({ scope: 'stickers', id: sticker.id, name: sticker.name, reason });
    if (!sticker.image) skip(SKIP_REASON.imageNotKept);
    else if (sticker.format_type === STICKER_FORMAT.lottie && !mayUploadLottie(input.live.guild))
      skip(SKIP_REASON.lottieNotAllowed);
    else if (used >= slots) skip(SKIP_REASON.noFreeSlot);
    else {
      used++;
      section.stickers_to_create.push(stickerItem(sticker));
    }
  }
  return section;
}

/**
 * The guild's icon, banner, splash and discovery splash: each one the live guild shows other than
 * the snapshot's (or the image a restore uploaded for it) is put back from its kept image, or
 * removed where the snapshot had none. An image the guild's features no longer allow is skipped.
 */
export function diffGuildImages(input: DiffInput): {
  guild_images_to_set: GuildImageItem[];
  skipped: SkippedItem[];
} {
  const result: { guild_images_to_set: GuildImageItem[]; skipped: SkippedItem[] } = {
    guild_images_to_set: [],
    skipped: [],
  };
  const { target, live } = input;
  if (!target.guild_images)
    return { ...result, skipped: [wholeScope('guild_images', SKIP_REASON.expressionsNotInSnapshot)] };
  if (!hasPermission(input.bot.permissions, PERMISSION.MANAGE_GUILD))
    return { ...result, skipped: [wholeScope('guild_images', 'the bot lacks the Manage Server permission')] };
  for (const slot of GUILD_IMAGE_SLOTS) {
    const wanted = target.guild[slot];
    if (wanted === undefined) continue;
    const current = live.guild[slot] ?? null;
    if (wanted === current || (wanted !== null && input.ids.resolve('image', wanted) === current)) continue;
    const skip = (reason: string) =>
      result.skipped.push({ scope: 'guild_images', id: slot, name: slot, reason });
    if (wanted !== null && !target.guild_images[slot]) {
      skip(SKIP_REASON.imageNotKept);
      continue;
    }
    const feature = wanted === null ? null : guildImageRefusal(slot, wanted.startsWith('a_'), live.guild);
    if (feature) skip(`the server lacks the ${feature} feature it needs`);
    else result.guild_images_to_set.push({ slot, current, target: wanted });
  }
  return result;
}
