import type { DiffInput, RestorableSetting, RestoreDiff } from './diff-model';
import type { LiveLookup } from './live-lookup';

/** Every restorable setting; the record type makes the compiler insist a new one is listed. */
const SETTING_KIND: Record<RestorableSetting, 'value' | 'channel'> = {
  name: 'value',
  description: 'value',
  verification_level: 'value',
  default_message_notifications: 'value',
  explicit_content_filter: 'value',
  afk_channel_id: 'channel',
  afk_timeout: 'value',
  system_channel_id: 'channel',
  system_channel_flags: 'value',
  rules_channel_id: 'channel',
  public_updates_channel_id: 'channel',
  preferred_locale: 'value',
};

export function diffGuildSettings(input: DiffInput, lookup: LiveLookup): RestoreDiff['guild_settings_diff'] {
  const diff: RestoreDiff['guild_settings_diff'] = {};
  for (const setting of Object.keys(SETTING_KIND) as RestorableSetting[]) {
    const target = input.target.guild[setting];
    const current = input.live.guild[setting];
    const wanted =
      SETTING_KIND[setting] === 'channel' && typeof target === 'string' ? lookup.channelId(target) : target;
    if (wanted !== current) diff[setting] = { current, target };
  }
  return diff;
}
