import { imageDataUri, type WebhookUpdate } from '@lib/chat-platform';
import type { WebhookItem } from '../restore-diff';
import { LiveLookup } from '../diff/live-lookup';
import { RESTORE_BATCH_SIZE, runConcurrently } from './concurrency';
import { waitedFor } from './platform-wait';
import { goneIsDone } from './removal-steps';
import { NOTHING, reason, type StepHandler } from './step-context';

/**
 * RestoreWebhooks: the incoming webhooks the snapshot does not have deleted first, then the
 * missing ones made in their channels (as they are now: the channels step ran before) with their
 * kept avatars, and the changed ones renamed, moved or given their avatar back, a batch per call.
 * A webhook cannot get its old token back: each one made has a new address, kept on the job for
 * the guild's owner (never in the outcome, logs or events). A webhook an earlier attempt made (the
 * worker died before its new id was recorded) shows as one to delete with the name, channel and
 * avatar of one to make: it is taken over (its address read from the platform's answer) instead of
 * made twice.
 */
export const restoreWebhooks: StepHandler = async (platform, context) => {
  const { diff, target, live, ids, bot } = context.comparison;
  const lookup = new LiveLookup({ target, live, ids, bot, scope: [] });
  const webhooks = new Map((target.webhooks ?? []).map((webhook) => [webhook.id, webhook]));
  const deletes = [...(diff.webhooks_to_delete ?? [])];
  const adopted = new Map<string, WebhookItem>();
  for (const wanted of diff.webhooks_to_create ?? []) {
    const index = deletes.findIndex(
      (orphan) =>
        orphan.name === wanted.name &&
        orphan.channel_id === wanted.channel_id &&
        orphan.image === wanted.image,
    );
    if (index >= 0) adopted.set(wanted.id, deletes.splice(index, 1)[0]);
  }
  const creates = diff.webhooks_to_create ?? [];
  const updates = diff.webhooks_to_update ?? [];
  if (deletes.length > 0) {
    const batch = deletes.slice(0, RESTORE_BATCH_SIZE);
    await runConcurrently(batch, (webhook) =>
      goneIsDone(platform.deleteWebhook(webhook.id, reason(context))),
    );
    return {
      ...NOTHING,
      deleted: batch.length,
      remaining: deletes.length - batch.length + creates.length + updates.length,
    };
  }

  const createBatch = creates.slice(0, RESTORE_BATCH_SIZE);
  const updateBatch = updates.slice(0, RESTORE_BATCH_SIZE);
  const avatars = [
    ...createBatch.filter((item) => !adopted.has(item.id)).map((item) => item.image),
    ...updateBatch
      .filter((update) => update.changed_fields.includes('avatar'))
      .map((update) => update.target.image),
  ].filter((digest): digest is string => digest !== null);
  const images = await context.readImages([...new Set(avatars)]);
  const avatarOf = (digest: string | null) => (digest === null ? null : imageDataUri(images.get(digest)!));
  const channelName = (id: string) => live.channels.find((channel) => channel.id === id)?.name ?? id;
  let created = 0;
  let updated = 0;
  const pause = waitedFor(
    await Promise.allSettled([
      runConcurrently(createBatch, async (item) => {
        const orphan = adopted.get(item.id);
        const made = orphan
          ? await platform.updateWebhook(orphan.id, { name: item.name }, reason(context))
          : await platform.createWebhook(
              item.channel_id,
              { name: item.name, avatar: avatarOf(item.image) },
              reason(context),
            );
        // The address first: a worker dying after it makes the next attempt take the webhook over
        // (and keep its address again) rather than lose it.
        await context.recordNewWebhook({
          original_id: item.id,
          webhook_id: made.id,
          name: made.name,
          channel_id: made.channel_id,
          channel_name: channelName(made.channel_id),
          address: made.address,
        });
        await context.recordReplacement('webhook', item.id, made.id);
        created++;
      }),
      runConcurrently(updateBatch, async (update) => {
        const wanted = webhooks.get(update.target.id)!;
        const body: WebhookUpdate = {};
        if (update.changed_fields.includes('name')) body.name = wanted.name;
        if (update.changed_fields.includes('avatar')) body.avatar = avatarOf(wanted.image);
        const channel = lookup.channel(wanted.channel_id)?.id;
        if (update.changed_fields.includes('channel_id') && channel) body.channel_id = channel;
        await platform.updateWebhook(update.current.id, body, reason(context));
        updated++;
      }),
    ]),
  );
  return {
    ...NOTHING,
    created,
    updated,
    remaining: creates.length + updates.length - created - updated,
    ...(pause && { pause }),
  };
};
