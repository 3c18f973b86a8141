import { CHANNEL_TYPE, CHANNEL_TYPE_FIELDS, type PlatformChannel } from '@lib/chat-platform';
import { channelItem, type DiffInput, type RestoreDiff } from './diff-model';
import { changedForumFields } from './forum-fields';
import { type LiveLookup, type Pair, reordered } from './live-lookup';
import { byPosition, compareIds } from './ordering';

type ChannelSection = Pick<RestoreDiff, 'channels_to_create' | 'channels_to_update' | 'channels_to_delete'>;

interface ChannelPair extends Pair<PlatformChannel> {
  /** The snapshot parent as a live id; undefined when it is not live (yet). */
  parent: string | null | undefined;
}

/**
 * The channel fields a restore compares and puts back (besides position, parent, the fields of
 * some types, CHANNEL_TYPE_FIELDS, and the forum fields: ./forum-fields.ts).
 */
export const RESTORED_CHANNEL_FIELDS = [
  'name',
  'type',
  'topic',
  'nsfw',
  'rate_limit_per_user',
  'bitrate',
  'user_limit',
] as const;

export function emptyChannelSection(): ChannelSection {
  return { channels_to_create: [], channels_to_update: [], channels_to_delete: [] };
}

export function diffChannels(input: DiffInput, lookup: LiveLookup): ChannelSection {
  const section = emptyChannelSection();
  const pairs: ChannelPair[] = [];
  for (const channel of [...input.target.channels].sort(channelOrder)) {
    const live = lookup.channel(channel.id);
    if (live) pairs.push({ target: channel, live, parent: lookup.channelId(channel.parent_id) });
    else section.channels_to_create.push(channelItem(channel));
  }
  const moved = movedChannels(pairs);
  for (const pair of pairs) {
    const changed = changedChannelFields(pair, moved.has(pair));
    if (changed.length === 0) continue;
    section.channels_to_update.push({
      current: channelItem(pair.live),
      target: channelItem(pair.target),
      changed_fields: changed,
    });
  }
  const matched = new Set(pairs.map((pair) => pair.live.id));
  section.channels_to_delete = input.live.channels
    .filter((channel) => !matched.has(channel.id))
    .map(({ id, name, type }) => ({ id, name, type }))
    .sort((a, b) => compareIds(a.id, b.id));
  return section;
}

/** Categories are ordered among categories, other channels among those of the same parent. */
function siblingList(type: number, parentId: string | null | undefined): string {
  if (type === CHANNEL_TYPE.category) return 'categories';
  return parentId === undefined ? 'unresolved parent' : `parent ${parentId ?? 'none'}`;
}

/**
 * Order counts only among siblings, so ranks are compared per sibling list, and only for channels
 * that stay in their list (one leaving a list would otherwise shift the ranks of those it left).
 */
function movedChannels(pairs: readonly ChannelPair[]): Set<ChannelPair> {
  const lists = new Map<string, ChannelPair[]>();
  for (const pair of pairs) {
    const list = siblingList(pair.live.type, pair.live.parent_id);
    if (siblingList(pair.target.type, pair.parent) !== list) continue;
    lists.set(list, [...(lists.get(list) ?? []), pair]);
  }
  const moved = new Set<ChannelPair>();
  for (const list of lists.values()) for (const pair of reordered(list, byPosition)) moved.add(pair);
  return moved;
}

function changedChannelFields(pair: ChannelPair, moved: boolean): string[] {
  const changed: string[] = RESTORED_CHANNEL_FIELDS.filter(
    (field) => pair.target[field] !== pair.live[field],
  );
  // Fields of some types only, absent from older snapshots: compared where the snapshot holds them.
  changed.push(
    ...CHANNEL_TYPE_FIELDS.filter(
      (field) => pair.target[field] !== undefined && pair.target[field] !== pair.live[field],
    ),
    ...changedForumFields(pair.target, pair.live),
  );
  const reparented = pair.parent !== pair.live.parent_id;
  if (reparented) changed.push('parent_id');
  // A channel that changes parent has to be placed among its new siblings as well.
  if (reparented || moved) changed.push('position');
  return changed;
}

/** Categories first, so a restore creating them in list order has every parent before its children. */
function channelOrder(a: PlatformChannel, b: PlatformChannel): number {
  const category = (channel: PlatformChannel) => Number(channel.type === CHANNEL_TYPE.category);
  return category(b) - category(a) || byPosition(a, b);
}
