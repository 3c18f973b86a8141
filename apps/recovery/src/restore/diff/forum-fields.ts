import {
  type DefaultReaction,
  FORUM_FIELDS,
  type ForumFields,
  type ForumTag,
  type ForumTagInput,
  type PlatformChannel,
} from '@lib/chat-platform';
import type { ClampedItem, IdResolution } from './diff-model';

/**
 * Forum and media channels' own fields (tags, the default reaction, sort order, layout and the
 * slow mode of new posts), compared and written. Their emojis name the guild's custom emojis by id:
 * a snapshot's emoji id is resolved to where that emoji lives now (the same one, or the one a restore
 * made in its place); one that is in the guild no more goes, said in `clamped`, because the platform
 * refuses an unknown emoji and would refuse the whole channel with it.
 */

/** The target's forum emojis as live ids; those not in the guild are dropped and noted. */
export function fitForumEmojis(
  channels: readonly PlatformChannel[],
  ids: IdResolution,
): { channels: PlatformChannel[]; clamped: ClampedItem[] } {
  const clamped: ClampedItem[] = [];
  const fitted = channels.map((channel) => {
    if (!hasForumEmoji(channel)) return channel;
    const note = (field: 'available_tags' | 'default_reaction_emoji', emojiId: string, what: string) =>
      clamped.push({
        scope: 'channels',
        id: channel.id,
        name: channel.name,
        field,
        snapshot_value: emojiId,
        restored_value: null,
        reason: `the custom emoji of ${what} is not in the guild: it goes without it`,
      });
    const result: PlatformChannel = { ...channel };
    if (channel.available_tags) {
      result.available_tags = channel.available_tags.map((tag) => {
        if (tag.emoji_id === null) return tag;
        const live = ids.resolve('emoji', tag.emoji_id);
        if (live === undefined) note('available_tags', tag.emoji_id, `the tag “${tag.name}”`);
        return { ...tag, emoji_id: live ?? null };
      });
    }
    const reaction = channel.default_reaction_emoji;
    if (reaction?.emoji_id) {
      const live = ids.resolve('emoji', reaction.emoji_id);
      if (live === undefined) note('default_reaction_emoji', reaction.emoji_id, 'the default reaction');
      result.default_reaction_emoji = live === undefined ? null : { ...reaction, emoji_id: live };
    }
    return result;
  });
  return { channels: fitted, clamped };
}

function hasForumEmoji(channel: PlatformChannel): boolean {
  return (
    (channel.available_tags ?? []).some((tag) => tag.emoji_id !== null) ||
    Boolean(channel.default_reaction_emoji?.emoji_id)
  );
}

/** Whether any forum of the snapshot names a custom emoji: its comparison then reads the guild's. */
export function namesCustomEmojis(channels: readonly PlatformChannel[]): boolean {
  return channels.some(hasForumEmoji);
}

/**
 * The forum fields that differ. A field the snapshot does not hold (taken before they were kept, or
 * a type without it) is not compared. Tags are compared in order and without their ids, which a
 * recreated channel's tags cannot keep.
 */
export function changedForumFields(target: PlatformChannel, live: PlatformChannel): string[] {
  return FORUM_FIELDS.filter((field) => {
    if (target[field] === undefined) return false;
    if (field === 'available_tags') return !sameTags(target.available_tags!, live.available_tags ?? []);
    if (field === 'default_reaction_emoji')
      return !sameReaction(target.default_reaction_emoji!, live.default_reaction_emoji ?? null);
    return target[field] !== live[field];
  });
}

function sameTags(a: readonly ForumTag[], b: readonly ForumTag[]): boolean {
  const shown = (tags: readonly ForumTag[]) => JSON.stringify(tags.map(tagContent));
  return shown(a) === shown(b);
}

function sameReaction(a: DefaultReaction | null, b: DefaultReaction | null): boolean {
  if (a === null || b === null) return a === b;
  return a.emoji_id === b.emoji_id && a.emoji_name === b.emoji_name;
}

function tagContent({ name, moderated, emoji_id, emoji_name }: ForumTag) {
  return { name, moderated, emoji_id, emoji_name };
}

/**
 * The forum fields of a write. Tags go as the channel's whole new list: one the live channel has
 * under the same name keeps its id (so posts keep their tags), the others are new. Tag names are
 * unique in a channel (the platform refuses duplicates), so a name matches at most one.
 */
export function forumFieldsToWrite(
  target: PlatformChannel,
  live: PlatformChannel | undefined,
  fields: ReadonlySet<string>,
): Omit<ForumFields, 'available_tags'> & { available_tags?: ForumTagInput[] } {
  const write: Omit<ForumFields, 'available_tags'> & { available_tags?: ForumTagInput[] } = {};
  for (const field of FORUM_FIELDS) {
    if (!fields.has(field) || target[field] === undefined) continue;
    if (field === 'available_tags') {
      const liveIds = new Map((live?.available_tags ?? []).map((tag) => [tag.name, tag.id]));
      write.available_tags = target.available_tags!.map(({ id: _snapshotId, ...tag }) => {
        const id = liveIds.get(tag.name);
        return id === undefined ? tag : { id, ...tag };
      });
    } else {
      Object.assign(write, { [field]: structuredClone(target[field]) });
    }
  }
  return write;
}

/**
 * The tags a write gave new ids (a forum made anew, or a tag it had lost): snapshot tag id -> the
 * id the platform answered, matched by name. Recorded like a recreated role's, for the id map.
 */
export function tagReplacements(
  target: PlatformChannel,
  written: PlatformChannel,
): { original: string; replacement: string }[] {
  const byName = new Map((written.available_tags ?? []).map((tag) => [tag.name, tag.id]));
  return (target.available_tags ?? []).flatMap((tag) => {
    const replacement = byName.get(tag.name);
    return replacement === undefined || replacement === tag.id ? [] : [{ original: tag.id, replacement }];
  });
}
