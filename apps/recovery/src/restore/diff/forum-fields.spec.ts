import type { ForumTag, PlatformChannel } from '@lib/chat-platform';
import { platformChannel } from '../../sync/guild-state.fixture';
import type { IdResolution } from './diff-model';
import { changedForumFields, fitForumEmojis, forumFieldsToWrite } from './forum-fields';

const tag = (id: string, name: string, emoji_id: string | null = null): ForumTag => ({
  id,
  name,
  moderated: false,
  emoji_id,
  emoji_name: null,
});

const forum = (fields: Partial<PlatformChannel> = {}): PlatformChannel =>
  platformChannel('f1', {
    type: 15,
    name: 'suggestions',
    available_tags: [tag('t1', 'bug'), tag('t2', 'idea')],
    default_reaction_emoji: null,
    default_sort_order: null,
    default_forum_layout: 0,
    default_thread_rate_limit_per_user: 0,
    ...fields,
  });

describe(changedForumFields.name, () => {
  it('compares tags by what they show, in order, not by id', () => {
    const live = forum({ available_tags: [tag('n1', 'bug'), tag('n2', 'idea')] });
    expect(changedForumFields(forum(), live)).toEqual([]);
    const swapped = forum({ available_tags: [tag('t2', 'idea'), tag('t1', 'bug')] });
    expect(changedForumFields(forum(), swapped)).toEqual(['available_tags']);
  });

  it('lists each changed field, and leaves out those the snapshot does not hold', () => {
    const live = forum({
      default_sort_order: 1,
      default_reaction_emoji: { emoji_id: null, emoji_name: '👍' },
    });
    expect(changedForumFields(forum(), live)).toEqual(['default_reaction_emoji', 'default_sort_order']);
    const old = forum();
    delete old.available_tags;
    delete old.default_sort_order;
    delete old.default_reaction_emoji;
    expect(changedForumFields(old, live)).toEqual([]);
  });
});

describe(fitForumEmojis.name, () => {
  const ids: IdResolution = {
    resolve: (kind, id) => (kind === 'emoji' ? { e1: 'e9' }[id] : undefined),
  };

  it('names emojis by their live ids and drops those the guild has no more, saying so', () => {
    const target = forum({
      available_tags: [tag('t1', 'bug', 'e1'), tag('t2', 'idea', 'gone')],
      default_reaction_emoji: { emoji_id: 'gone', emoji_name: null },
    });
    const { channels, clamped } = fitForumEmojis([target], ids);
    expect(channels[0].available_tags!.map((t) => t.emoji_id)).toEqual(['e9', null]);
    expect(channels[0].default_reaction_emoji).toBeNull();
    expect(clamped.map((item) => [item.field, item.snapshot_value, item.restored_value])).toEqual([
      ['available_tags', 'gone', null],
      ['default_reaction_emoji', 'gone', null],
    ]);
  });
});

describe(forumFieldsToWrite.name, () => {
  it('sends the whole tag list, a tag the live channel has by name keeping its id', () => {
    const live = forum({ id: 'live', available_tags: [tag('l1', 'idea'), tag('l2', 'raided')] });
    const write = forumFieldsToWrite(forum(), live, new Set(['available_tags']));
    expect(write).toEqual({
      available_tags: [
        { name: 'bug', moderated: false, emoji_id: null, emoji_name: null },
        { id: 'l1', name: 'idea', moderated: false, emoji_id: null, emoji_name: null },
      ],
    });
  });

  it('writes only the fields asked for', () => {
    expect(
      forumFieldsToWrite(forum({ default_sort_order: 1 }), undefined, new Set(['default_sort_order'])),
    ).toEqual({ default_sort_order: 1 });
  });
});
