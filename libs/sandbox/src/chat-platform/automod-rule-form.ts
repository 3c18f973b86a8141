import { PermissionFlagsBits } from 'discord-api-types/v10';
import {
  type FakeAutoModAction,
  type FakeAutoModRule,
  type FakeTriggerMetadata,
  type TriggerType,
  MAX_CUSTOM_MESSAGE,
  MAX_EXEMPT_CHANNELS,
  MAX_EXEMPT_ROLES,
  MAX_MENTION_TOTAL_LIMIT,
  MAX_TIMEOUT_SECONDS,
  METADATA_FIELDS,
  METADATA_LIMITS,
} from './automod-rules';
import { BotAuthority } from './bot-authority';
import type { FormBody } from './form-body';
import { platformError } from './platform-error';
import { CHANNEL_TYPES, type FakeGuild } from './platform-state';

/**
 * Reads an AutoMod rule's JSON params (resources/auto-moderation, "Create/Modify Auto Moderation
 * Rule") with the documented limits. Where the docs are silent the fake takes the stricter reading,
 * each said where it is read:
 * - a name of 1-100 characters (the OpenAPI document's at most 100);
 * - MEMBER_PROFILE rules check MEMBER_UPDATE (event type 2), every other trigger MESSAGE_SEND (1);
 * - metadata fields of another trigger type are refused, not ignored;
 * - KEYWORD and MEMBER_PROFILE need a keyword or a regex pattern, KEYWORD_PRESET a preset,
 *   MENTION_SPAM its `mention_total_limit` (0-50, the OpenAPI document's range); regex patterns
 *   are not compiled (Rust's syntax); keywords and patterns are 1 character at least (OpenAPI);
 * - `actions` is required on create (the docs mark it so; the OpenAPI document does not) and
 *   holds 1-5 actions (OpenAPI); BLOCK_MEMBER_INTERACTION only on MEMBER_PROFILE rules, which
 *   cannot BLOCK_MESSAGE; TIMEOUT only on KEYWORD and MENTION_SPAM rules (documented);
 *   `custom_message` at most 150 characters (the docs; the OpenAPI document says 300);
 *   an alert channel is a text channel (type 0) of the guild.
 */

const TRIGGER_TYPES: readonly TriggerType[] = [1, 3, 4, 5, 6];
const ACTION_TYPES = [1, 2, 3, 4] as const;
const PRESETS = [1, 2, 3] as const;
const NAME_LENGTH = { min: 1, max: 100 };
const MAX_ACTIONS = 5;

/** The fields of a rule a body sets; undefined for those it leaves as they are. */
export type RuleFields = Partial<Omit<FakeAutoModRule, 'id' | 'guild_id' | 'creator_id'>>;

/** The event type a trigger type's rules check (the stricter reading: the docs pair them only by name). */
const eventTypeOf = (trigger: TriggerType) => (trigger === 6 ? 2 : 1);

function readTriggerMetadata(
  form: FormBody,
  trigger: TriggerType,
  required: boolean,
): FakeTriggerMetadata | undefined {
  const nested = form.nested('trigger_metadata');
  if (nested === undefined || nested === null) {
    return required ? readMetadataFields(undefined, trigger, form) : undefined;
  }
  return readMetadataFields(nested, trigger, form);
}

/** The metadata of the trigger type, each of its fields present; absent from `metadata`, empty. */
function readMetadataFields(
  metadata: FormBody | undefined,
  trigger: TriggerType,
  form: FormBody,
): FakeTriggerMetadata | undefined {
  const fields = METADATA_FIELDS[trigger];
  for (const field of [
    'keyword_filter',
    'regex_patterns',
    'allow_list',
    'presets',
    'mention_total_limit',
    'mention_raid_protection_enabled',
  ] as const) {
    if (!fields.includes(field) && metadata?.has(field)) {
      metadata.fail(field, 'AUTO_MODERATION_INVALID_TRIGGER_METADATA', 'Not a field of this trigger type.');
    }
  }
  const result: FakeTriggerMetadata = {};
  if (trigger === 1 || trigger === 6) {
    const { keyword_filter: keywords, regex_patterns: regexes, allow_list: allowed } = METADATA_LIMITS;
    result.keyword_filter =
      metadata?.strings('keyword_filter', { max: keywords.items, min: 1, maxLength: keywords.characters }) ??
      [];
    result.regex_patterns =
      metadata?.strings('regex_patterns', { max: regexes.items, min: 1, maxLength: regexes.characters }) ??
      [];
    result.allow_list =
      metadata?.strings('allow_list', { max: allowed.items, min: 1, maxLength: allowed.characters }) ?? [];
    if (result.keyword_filter.length + result.regex_patterns.length === 0) {
      form.fail('trigger_metadata', 'BASE_TYPE_REQUIRED', 'A keyword or a regex pattern is required.');
    }
  }
  if (trigger === 4) {
    const { allow_list: allowed } = METADATA_LIMITS;
    result.allow_list =
      metadata?.strings('allow_list', { max: allowed.presetItems, min: 1, maxLength: allowed.characters }) ??
      [];
    const presets = metadata ? readPresets(metadata) : [];
    if (presets.length === 0) form.fail('trigger_metadata', 'BASE_TYPE_REQUIRED', 'A preset is required.');
    result.presets = presets;
  }
  if (trigger === 5) {
    const limit = metadata?.integer('mention_total_limit', {
      required: true,
      min: 0,
      max: MAX_MENTION_TOTAL_LIMIT,
    });
    if (!metadata) form.fail('trigger_metadata', 'BASE_TYPE_REQUIRED', 'This field is required');
    result.mention_total_limit = limit ?? 0;
    result.mention_raid_protection_enabled = metadata?.boolean('mention_raid_protection_enabled') ?? false;
  }
  return result;
}

function readPresets(metadata: FormBody): (1 | 2 | 3)[] {
  const raw = metadata.raw('presets');
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((preset) => !PRESETS.includes(preset as 1))) {
    metadata.fail('presets', 'BASE_TYPE_CHOICES', `Value must be one of {${PRESETS.join(', ')}}.`);
    return [];
  }
  return [...new Set(raw as (1 | 2 | 3)[])];
}

function readAction(
  action: FormBody,
  trigger: TriggerType,
  guild: FakeGuild,
  actorId: string,
): FakeAutoModAction | undefined {
  const type = action.integer('type', { required: true, oneOf: ACTION_TYPES }) as
    FakeAutoModAction['type'] | undefined;
  if (type === undefined) return undefined;
  const metadata = action.nested('metadata');
  const allowed = {
    1: trigger !== 6,
    2: true,
    3: trigger === 1 || trigger === 5,
    4: trigger === 6,
  }[type];
  if (!allowed) {
    action.fail(
      'type',
      'AUTO_MODERATION_INVALID_ACTION',
      'This action is not allowed for this trigger type.',
    );
    return undefined;
  }
  const known = { 1: 'custom_message', 2: 'channel_id', 3: 'duration_seconds', 4: undefined }[type];
  for (const field of ['custom_message', 'channel_id', 'duration_seconds']) {
    if (field !== known && metadata?.has(field)) {
      metadata.fail(field, 'AUTO_MODERATION_INVALID_ACTION_METADATA', 'Not a field of this action type.');
    }
  }
  switch (type) {
    case 1: {
      const message = metadata?.string('custom_message', { max: MAX_CUSTOM_MESSAGE });
      return { type, metadata: typeof message === 'string' ? { custom_message: message } : {} };
    }
    case 2: {
      if (!metadata) return action.fail('metadata', 'BASE_TYPE_REQUIRED', 'This field is required');
      const channelId = metadata.snowflake('channel_id', { required: true });
      if (!channelId) return undefined;
      const channel = guild.channels.find((candidate) => candidate.id === channelId);
      if (channel?.type !== CHANNEL_TYPES.text) {
        return metadata.fail('channel_id', 'CHANNEL_TYPE_INVALID', 'Must be a text channel in this guild.');
      }
      return { type, metadata: { channel_id: channelId } };
    }
    case 3: {
      if (!metadata) return action.fail('metadata', 'BASE_TYPE_REQUIRED', 'This field is required');
      const seconds = metadata.integer('duration_seconds', {
        required: true,
        min: 0,
        max: MAX_TIMEOUT_SECONDS,
      });
      // "The MODERATE_MEMBERS permission is required to use the TIMEOUT action type."
      new BotAuthority(guild, actorId).require(PermissionFlagsBits.ModerateMembers);
      return seconds == null ? undefined : { type, metadata: { duration_seconds: seconds } };
    }
    case 4:
      return { type, metadata: {} };
  }
}

function readActions(
  form: FormBody,
  trigger: TriggerType,
  guild: FakeGuild,
  actorId: string,
  required: boolean,
): FakeAutoModAction[] | undefined {
  const actions = form.objects('actions');
  if (actions === undefined || actions === null) {
    if (required || actions === null) form.fail('actions', 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  if (actions.length === 0 || actions.length > MAX_ACTIONS) {
    return form.fail('actions', 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${MAX_ACTIONS} in length.`);
  }
  const read = actions.map((action) => readAction(action, trigger, guild, actorId));
  return read.every((action) => action !== undefined) ? read : undefined;
}

/** Exempt roles or channels: ids that exist in the guild, at most `max`. */
function readExempt(
  form: FormBody,
  field: 'exempt_roles' | 'exempt_channels',
  max: number,
  guild: FakeGuild,
): string[] | undefined {
  const ids = form.snowflakes(field);
  if (ids === undefined) return undefined;
  if (ids === null) return [];
  if (ids.length > max) return form.fail(field, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  // An id the guild does not have is Unknown Role or Unknown Channel (the docs say nothing of it;
  // refusing is the stricter reading).
  for (const id of ids) {
    if (field === 'exempt_roles' && !guild.roles.some((role) => role.id === id)) {
      throw platformError.unknownRole();
    }
    if (field === 'exempt_channels' && !guild.channels.some((channel) => channel.id === id)) {
      throw platformError.unknownChannel();
    }
  }
  return [...new Set(ids)];
}

/**
 * The rule fields a create (`existing` undefined) or modify body sets, checked; answers 400 Invalid
 * Form Body for any bad field. A modify cannot change `trigger_type` (the OpenAPI document lets it
 * name the rule's own).
 */
export function readRuleFields(
  form: FormBody,
  guild: FakeGuild,
  actorId: string,
  existing?: FakeAutoModRule,
): RuleFields {
  const creating = existing === undefined;
  const fields: RuleFields = {};
  const name = form.string('name', { required: creating, ...NAME_LENGTH });
  if (name === null) form.fail('name', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (typeof name === 'string') fields.name = name;
  const triggerType = form.integer('trigger_type', { required: creating, oneOf: TRIGGER_TYPES }) as
    TriggerType | null | undefined;
  if (existing && triggerType != null && triggerType !== existing.trigger_type) {
    form.fail(
      'trigger_type',
      'AUTO_MODERATION_TRIGGER_TYPE_IMMUTABLE',
      'A rule’s trigger type cannot change.',
    );
  }
  const trigger = existing?.trigger_type ?? triggerType ?? undefined;
  const eventType = form.integer('event_type', { required: creating, oneOf: [1, 2] });
  if (eventType === null) form.fail('event_type', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (trigger !== undefined && typeof eventType === 'number') {
    if (eventType !== eventTypeOf(trigger)) {
      form.fail(
        'event_type',
        'AUTO_MODERATION_INVALID_EVENT_TYPE',
        'Not an event type of this trigger type.',
      );
    } else {
      fields.event_type = eventType;
    }
  }
  if (trigger !== undefined) {
    // Required on create for the trigger types that have metadata; SPAM has none.
    const metadata = readTriggerMetadata(form, trigger, creating);
    if (metadata) fields.trigger_metadata = metadata;
    const actions = readActions(form, trigger, guild, actorId, creating);
    if (actions) fields.actions = actions;
  }
  const enabled = form.boolean('enabled');
  if (typeof enabled === 'boolean') fields.enabled = enabled;
  const roles = readExempt(form, 'exempt_roles', MAX_EXEMPT_ROLES, guild);
  if (roles) fields.exempt_roles = roles;
  const channels = readExempt(form, 'exempt_channels', MAX_EXEMPT_CHANNELS, guild);
  if (channels) fields.exempt_channels = channels;
  form.check();
  if (trigger !== undefined && creating) fields.trigger_type = trigger;
  return fields;
}
