import { hasPermission, INCOMING_WEBHOOK, PERMISSION } from '@lib/chat-platform';
import type { SnapshotWebhook } from '../../snapshots/snapshot-payload';
import {
  type DiffInput,
  type LiveWebhook,
  type RestoreDiff,
  SKIP_REASON,
  type SkippedItem,
  type UpdateItem,
  type WebhookItem,
} from './diff-model';
import type { LiveLookup } from './live-lookup';
import { compareIds } from './ordering';

type WebhookSection = Required<
  Pick<RestoreDiff, 'webhooks_to_create' | 'webhooks_to_update' | 'webhooks_to_delete'>
> & { skipped: SkippedItem[] };

/** The webhook fields a restore compares and sets back: all a bot can set. */
export const RESTORED_WEBHOOK_FIELDS = ['name', 'channel_id', 'avatar'] as const;
export type RestoredWebhookField = (typeof RESTORED_WEBHOOK_FIELDS)[number];

const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);

function liveItem({ id, name, channel_id, image }: LiveWebhook): WebhookItem {
  return { id, name, channel_id, image };
}

function snapshotItem({ id, name, channel_id, image }: SnapshotWebhook): WebhookItem {
  return { id, name, channel_id, image };
}

/**
 * Whether the live webhook shows the snapshot's avatar: the same hash, or an image of the same
 * bytes (one a restore uploaded has a hash of its own). A snapshot avatar whose image was not kept
 * cannot be put back, so it never counts as changed.
 */
export function sameAvatar(wanted: SnapshotWebhook, current: LiveWebhook): boolean {
  if (wanted.avatar === current.avatar) return true;
  if (wanted.avatar === null) return false;
  return wanted.image === null || wanted.image === current.image;
}

/**
 * The fields of `current` that differ from the snapshot's webhook, its channel compared as the
 * live channel it goes to (`channelId`).
 */
export function changedWebhookFields(
  wanted: SnapshotWebhook,
  current: LiveWebhook,
  channelId: string,
): RestoredWebhookField[] {
  return RESTORED_WEBHOOK_FIELDS.filter((field) => {
    if (field === 'name') return wanted.name !== current.name;
    if (field === 'channel_id') return channelId !== current.channel_id;
    return !sameAvatar(wanted, current);
  });
}

/**
 * The snapshot's incoming webhooks against the live guild's: one matched by id (or by the id a
 * restore made it under) is set back where its name, channel or avatar differ; a missing one is
 * made anew in its channel (followed to where a restore recreated it; skipped when that channel is
 * gone and not being restored), with a new address; a live incoming webhook the snapshot does not
 * have is deleted. Channel-follower and application webhooks are left alone: a bot cannot make them.
 */
export function diffWebhooks(
  input: DiffInput,
  lookup: LiveLookup,
  pending: { channels: ReadonlySet<string> },
): WebhookSection {
  const section: WebhookSection = {
    webhooks_to_create: [],
    webhooks_to_update: [],
    webhooks_to_delete: [],
    skipped: [],
  };
  const whole = (reason: string) => ({
    ...section,
    skipped: [{ scope: 'webhooks' as const, id: 'webhooks', name: 'webhooks', reason }],
  });
  const wanted = input.target.webhooks;
  if (!wanted) return whole(SKIP_REASON.webhooksNotInSnapshot);
  if (!input.webhooks || !hasPermission(input.bot.permissions, PERMISSION.MANAGE_WEBHOOKS))
    return whole(SKIP_REASON.missingManageWebhooks);
  const live = input.webhooks.filter((webhook) => webhook.type === INCOMING_WEBHOOK);
  const liveById = new Map(live.map((webhook) => [webhook.id, webhook]));
  const matched = new Set<string>();
  for (const webhook of [...wanted].sort(byId)) {
    const liveId = input.ids.resolve('webhook', webhook.id);
    const current = liveId === undefined ? undefined : liveById.get(liveId);
    if (current) matched.add(current.id);
    const channelId =
      lookup.channel(webhook.channel_id)?.id ??
      (pending.channels.has(webhook.channel_id) ? webhook.channel_id : undefined);
    if (channelId === undefined) {
      section.skipped.push({
        scope: 'webhooks',
        id: webhook.id,
        name: webhook.name,
        reason: SKIP_REASON.webhookChannelNotRestored,
      });
      continue;
    }
    if (!current) {
      section.webhooks_to_create.push({ ...snapshotItem(webhook), channel_id: channelId });
      continue;
    }
    const changed = changedWebhookFields(webhook, current, channelId);
    if (changed.length > 0) {
      const update: UpdateItem<WebhookItem> = {
        current: liveItem(current),
        target: snapshotItem(webhook),
        changed_fields: [...changed],
      };
      section.webhooks_to_update.push(update);
    }
  }
  section.webhooks_to_delete = live
    .filter((webhook) => !matched.has(webhook.id))
    .map(liveItem)
    .sort(byId);
  return section;
}
