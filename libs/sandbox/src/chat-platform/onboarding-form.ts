import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { FormBody } from './form-body';
import { platformError } from './platform-error';
import type { FakeChannel, FakeGuild } from './platform-state';
import type { PlatformStore } from './platform-store';
import type { FakeOnboarding, FakeOnboardingPrompt, FakePromptOption } from './welcome-flow';

/**
 * Reads a "Modify Guild Onboarding" body (resources/guild) and checks the documented constraints:
 * enabled, the onboarding needs at least 7 default channels, 5 of which let @everyone send
 * messages; in ONBOARDING_ADVANCED mode the channels of the onboarding's questions count too
 * ("Counts Default Channels and Questions towards constraints": the fake counts the channels of
 * the options of prompts shown in onboarding, the docs saying no more).
 *
 * The OpenAPI document's limits: at most 15 prompts and 500 default channels; a prompt's title
 * 1-100 characters, 1-50 options; an option's title 1-50 characters, description at most 100,
 * emoji name at most 100, at most 50 roles and 50 channels.
 *
 * Undocumented, the stricter reading: ids are unique; an option's roles, channels and
 * custom emoji, and the default channels, exist in the guild (Unknown Role, Unknown Channel, or an
 * Invalid Form Body for an emoji); a prompt's `single_select` and `required` default to false,
 * `in_onboarding` to true and `type` to MULTIPLE_CHOICE. An option without an id gets a new one;
 * one with an id keeps it.
 */

export const MIN_DEFAULT_CHANNELS = 7;
export const MIN_CHATTABLE_DEFAULT_CHANNELS = 5;

const PROMPT_TITLE = { required: true, min: 1, max: 100 } as const;
const OPTION_TITLE = { required: true, min: 1, max: 50 } as const;
const MAX_PROMPTS = 15;
const MAX_OPTIONS = 50;
const MAX_OPTION_TARGETS = 50;
const MAX_DEFAULT_CHANNELS = 500;

/** Snowflakes, at most `max` of them. */
function readIds(form: FormBody, field: string, max: number): string[] | null | undefined {
  const ids = form.snowflakes(field);
  if (ids && ids.length > max)
    return form.fail(field, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  return ids;
}

function readOption(form: FormBody, guild: FakeGuild, store: PlatformStore): FakePromptOption {
  const id = form.snowflake('id');
  const title = form.string('title', OPTION_TITLE);
  const description = form.string('description', { max: 100 });
  const emojiId = form.snowflake('emoji_id');
  if (emojiId && !store.expressions.emojis(guild.id).some((emoji) => emoji.id === emojiId)) {
    form.fail('emoji_id', 'EMOJI_INVALID', 'Must be an emoji of this guild.');
  }
  const roleIds = readIds(form, 'role_ids', MAX_OPTION_TARGETS) ?? [];
  const channelIds = readIds(form, 'channel_ids', MAX_OPTION_TARGETS) ?? [];
  for (const roleId of roleIds) store.role(guild, roleId);
  requireChannels(guild, channelIds);
  return {
    id: id ?? store.ids.next(),
    title: title ?? '',
    description: description ?? null,
    emoji_id: emojiId ?? null,
    emoji_name: form.string('emoji_name', { max: 100 }) ?? null,
    emoji_animated: form.boolean('emoji_animated') ?? false,
    role_ids: [...new Set(roleIds)],
    channel_ids: [...new Set(channelIds)],
  };
}

function readPrompt(form: FormBody, guild: FakeGuild, store: PlatformStore): FakeOnboardingPrompt {
  const id = form.snowflake('id', { required: true });
  const title = form.string('title', PROMPT_TITLE);
  const options = form.objects('options', { max: MAX_OPTIONS }) ?? [];
  if (options.length === 0) form.fail('options', 'BASE_TYPE_REQUIRED', 'This field is required');
  const read = options.map((option) => readOption(option, guild, store));
  if (new Set(read.map((option) => option.id)).size !== read.length) {
    form.fail('options', 'DUPLICATE_ID', 'Option ids must be unique.');
  }
  return {
    id: id ?? '',
    type: (form.integer('type', { oneOf: [0, 1] }) ?? 0) as 0 | 1,
    title: title ?? '',
    options: read,
    single_select: form.boolean('single_select') ?? false,
    required: form.boolean('required') ?? false,
    in_onboarding: form.boolean('in_onboarding') ?? true,
  };
}

function requireChannels(guild: FakeGuild, ids: string[]): void {
  for (const id of ids) {
    if (!guild.channels.some((channel) => channel.id === id)) throw platformError.unknownChannel();
  }
}

/** The onboarding a body asks for, over the current one (fields it leaves out stay). */
export function readOnboarding(
  form: FormBody,
  guild: FakeGuild,
  store: PlatformStore,
  current: FakeOnboarding,
): FakeOnboarding {
  const promptForms = form.objects('prompts', { max: MAX_PROMPTS });
  // Null clears the list, as an empty one does.
  const prompts = promptForms && promptForms.map((prompt) => readPrompt(prompt, guild, store));
  if (prompts && new Set(prompts.map((prompt) => prompt.id)).size !== prompts.length) {
    form.fail('prompts', 'DUPLICATE_ID', 'Prompt ids must be unique.');
  }
  const defaults = readIds(form, 'default_channel_ids', MAX_DEFAULT_CHANNELS);
  if (defaults) requireChannels(guild, defaults);
  const enabled = form.boolean('enabled');
  const mode = form.integer('mode', { oneOf: [0, 1] }) as 0 | 1 | null | undefined;
  form.check();
  return {
    prompts: prompts === undefined ? current.prompts : (prompts ?? []),
    default_channel_ids: defaults
      ? [...new Set(defaults)]
      : defaults === null
        ? []
        : current.default_channel_ids,
    enabled: enabled ?? current.enabled,
    mode: mode ?? current.mode,
  };
}

/** Whether @everyone may see and send messages in the channel (its @everyone overwrite counted). */
function everyoneChats(guild: FakeGuild, channel: FakeChannel): boolean {
  const everyone = guild.roles.find((role) => role.id === guild.id);
  let bits = BigInt(everyone?.permissions ?? '0');
  const overwrite = channel.permission_overwrites.find((o) => o.type === 0 && o.id === guild.id);
  if (overwrite) bits = (bits & ~BigInt(overwrite.deny)) | BigInt(overwrite.allow);
  const needed = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages;
  return (bits & needed) === needed;
}

/** Whether an enabled onboarding meets the documented requirements. */
export function meetsRequirements(guild: FakeGuild, onboarding: FakeOnboarding): boolean {
  const ids = new Set(onboarding.default_channel_ids);
  if (onboarding.mode === 1) {
    for (const prompt of onboarding.prompts.filter((candidate) => candidate.in_onboarding)) {
      for (const option of prompt.options) for (const id of option.channel_ids) ids.add(id);
    }
  }
  const channels = guild.channels.filter((channel) => ids.has(channel.id));
  const chattable = channels.filter((channel) => everyoneChats(guild, channel));
  return channels.length >= MIN_DEFAULT_CHANNELS && chattable.length >= MIN_CHATTABLE_DEFAULT_CHANNELS;
}
