import type { RestorableSetting } from '../restore-diff';
import { NOTHING, reason, type StepHandler } from './step-context';

const CHANNEL_ID_SETTINGS: RestorableSetting[] = [
  'afk_channel_id',
  'system_channel_id',
  'rules_channel_id',
  'public_updates_channel_id',
];

/** UpdateGuildSettings: the changed settings set back in one call, a channel named by where it is now. */
export const updateGuildSettings: StepHandler = async (platform, context) => {
  const { diff, ids } = context.comparison;
  const update: Record<string, unknown> = {};
  for (const [field, change] of Object.entries(diff.guild_settings_diff)) {
    if (!change) continue;
    if (CHANNEL_ID_SETTINGS.includes(field as RestorableSetting) && typeof change.target === 'string') {
      const channelId = ids.resolve('channel', change.target);
      if (channelId !== undefined) update[field] = channelId;
    } else {
      update[field] = change.target;
    }
  }
  const fields = Object.keys(update).length;
  if (fields === 0) return NOTHING;
  await platform.updateGuildSettings(context.platformGuildId, update, reason(context));
  return { ...NOTHING, updated: fields };
};
