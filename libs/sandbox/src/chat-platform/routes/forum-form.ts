import { channelHasField } from '../channel-fields';
import type { FormBody } from '../form-body';
import { platformError } from '../platform-error';
import type {
  FakeChannel,
  FakeDefaultReaction,
  FakeForumFields,
  FakeForumTag,
  FakeGuild,
} from '../platform-state';
import type { PlatformStore } from '../platform-store';

/**
 * The fields of forum (15) and media (16) channels in a Create Guild Channel or Modify Channel
 * body (resources/guild, resources/channel): `available_tags` ("limited to 20"), each tag's name
 * "0-20 characters" (the OpenAPI document allows 50; the docs' 20 is the stricter),
 * `default_reaction_emoji`, `default_sort_order` (0, 1 or null), `default_forum_layout` (0-2,
 * forums only) and `default_thread_rate_limit_per_user` (0-21600). A field the channel's type does
 * not have is ignored, as the platform ignores it (see `applyFields`).
 */

export const MAX_FORUM_TAGS = 20;
export const MAX_TAG_NAME = 20;
const MAX_EMOJI_NAME = 100;
const MAX_THREAD_SLOW_MODE = 21_600;

/**
 * An emoji of a tag or of the default reaction: `emoji_id` must name a custom emoji of the guild
 * (the docs say "the id of a guild's custom emoji"; what the platform answers for another id is
 * undocumented: the fake refuses it, 10014 Unknown Emoji). "At most one of `emoji_id` and
 * `emoji_name` may be set to a non-null value" (Forum Tag Object); the docs say nothing of it for
 * the default reaction, where the fake applies the same rule, the stricter reading.
 */
function readEmoji(form: FormBody, store: PlatformStore, guild: FakeGuild): FakeDefaultReaction {
  const emojiId = form.snowflake('emoji_id') ?? null;
  const emojiName = form.string('emoji_name', { min: 1, max: MAX_EMOJI_NAME }) ?? null;
  if (emojiId !== null && emojiName !== null) {
    form.fail('emoji_name', 'EMOJI_ID_AND_NAME_SET', 'At most one of emoji_id and emoji_name may be set.');
  }
  if (emojiId !== null && !store.expressions.emojis(guild.id).some((emoji) => emoji.id === emojiId)) {
    throw platformError.unknownEmoji();
  }
  return { emoji_id: emojiId, emoji_name: emojiName };
}

/**
 * The tags a body sends: the whole new list. A tag sent with the id of one of the channel's tags
 * keeps that id (an edit); a tag without an id is new and gets one. An id the channel has no tag
 * for is 10087 Unknown Tag (undocumented what the platform does; a new channel has no tags, so
 * tags sent at its creation carry no id): the fake refuses it rather than keep an id it did not
 * give. Names must be unique (40061 "Tag names must be unique"; the fake compares them ignoring
 * case, the stricter reading).
 */
function readTags(
  form: FormBody,
  store: PlatformStore,
  guild: FakeGuild,
  existing: readonly FakeForumTag[],
): FakeForumTag[] | undefined {
  const items = form.objects('available_tags', { max: MAX_FORUM_TAGS });
  // A list past the limit reads as undefined, its error recorded: answer it.
  form.check();
  if (items === undefined) return undefined;
  const drafts = (items ?? []).map((item) => {
    const id = item.snowflake('id');
    const name = item.string('name', { required: true, max: MAX_TAG_NAME });
    const moderated = item.boolean('moderated') ?? false;
    return { id, name: name ?? '', moderated, ...readEmoji(item, store, guild) };
  });
  form.check();
  const names = new Set<string>();
  const ids = new Set<string>();
  return drafts.map(({ id, ...tag }) => {
    if (names.has(tag.name.toLowerCase())) throw platformError.tagNamesNotUnique();
    names.add(tag.name.toLowerCase());
    if (id !== undefined && id !== null) {
      if (ids.has(id) || !existing.some((old) => old.id === id)) throw platformError.unknownTag();
      ids.add(id);
      return { id, ...tag };
    }
    return { id: store.ids.next(), ...tag };
  });
}

function readDefaultReaction(
  form: FormBody,
  store: PlatformStore,
  guild: FakeGuild,
): FakeDefaultReaction | null | undefined {
  const nested = form.nested('default_reaction_emoji');
  if (nested === undefined || nested === null) return nested;
  const emoji = readEmoji(nested, store, guild);
  // An object naming no emoji is no default reaction.
  return emoji.emoji_id === null && emoji.emoji_name === null ? null : emoji;
}

/**
 * The forum fields of a body for a channel of `type` (`channel`: the one being edited, whose tags
 * may be kept by id). Nulls are the defaults, as for the other channel fields.
 */
export function readForumFields(
  form: FormBody,
  store: PlatformStore,
  guild: FakeGuild,
  type: number,
  channel?: FakeChannel,
): FakeForumFields {
  const fields: FakeForumFields = {};
  if (!channelHasField(type, 'available_tags')) return fields;
  const sortOrder = form.integer('default_sort_order', { oneOf: [0, 1] });
  if (sortOrder !== undefined) fields.default_sort_order = sortOrder as 0 | 1 | null;
  if (channelHasField(type, 'default_forum_layout')) {
    const layout = form.integer('default_forum_layout', { oneOf: [0, 1, 2] });
    if (layout !== undefined) fields.default_forum_layout = (layout ?? 0) as 0 | 1 | 2;
  }
  const threadSlowMode = form.integer('default_thread_rate_limit_per_user', {
    min: 0,
    max: MAX_THREAD_SLOW_MODE,
  });
  if (threadSlowMode !== undefined) fields.default_thread_rate_limit_per_user = threadSlowMode ?? 0;
  const reaction = readDefaultReaction(form, store, guild);
  form.check();
  if (reaction !== undefined) fields.default_reaction_emoji = reaction;
  const tags = readTags(form, store, guild, channel?.available_tags ?? []);
  if (tags !== undefined) fields.available_tags = tags;
  return fields;
}
