import {
  AUTOMOD_ALERT_ACTION,
  type AutoModAction,
  autoModRuleCap,
  hasPermission,
  PERMISSION,
  type PlatformAutoModRule,
} from '@lib/chat-platform';
import { isDeepStrictEqual } from 'node:util';
import {
  type AutoModRuleItem,
  type DiffInput,
  type RestoreDiff,
  SKIP_REASON,
  type SkippedItem,
  type UpdateItem,
} from './diff-model';
import type { LiveLookup } from './live-lookup';
import { compareIds } from './ordering';

type AutoModSection = Required<
  Pick<RestoreDiff, 'automod_rules_to_create' | 'automod_rules_to_update' | 'automod_rules_to_delete'>
> & { skipped: SkippedItem[] };

/** The rule fields a restore compares and sets back (the trigger type cannot be changed). */
export const RESTORED_AUTOMOD_FIELDS = [
  'name',
  'event_type',
  'trigger_metadata',
  'actions',
  'enabled',
  'exempt_roles',
  'exempt_channels',
] as const;

const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);

/**
 * A rule's value without the metadata fields that say nothing (an empty list, false, null): the
 * platform answers every field of a trigger's metadata, empty ones included, whether or not it was
 * sent, so a rule made from a snapshot's reads back with them.
 */
export function meaningful(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(meaningful);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        ([, field]) => !(field === null || field === false || (Array.isArray(field) && field.length === 0)),
      )
      .map(([key, field]) => [key, meaningful(field)]),
  );
}

function ruleItem({ id, name, trigger_type, enabled }: PlatformAutoModRule): AutoModRuleItem {
  return { id, name, trigger_type, enabled };
}

/**
 * A snapshot rule as the live guild would take it: its exempt roles and channels, and its alert
 * channel, as their live ids (or those the restore makes: `pending`). An exemption that exists
 * nowhere (its role or channel not restored) is left out; a rule whose alert channel does not is
 * null (it cannot be made).
 */
export function liveRule(
  rule: PlatformAutoModRule,
  lookup: LiveLookup,
  pending: { roles: ReadonlySet<string>; channels: ReadonlySet<string> },
): PlatformAutoModRule | null {
  const role = (id: string) => lookup.role(id)?.id ?? (pending.roles.has(id) ? id : undefined);
  const channel = (id: string) => lookup.channel(id)?.id ?? (pending.channels.has(id) ? id : undefined);
  const actions: AutoModAction[] = [];
  for (const action of rule.actions) {
    const alertChannel = action.metadata.channel_id;
    if (action.type !== AUTOMOD_ALERT_ACTION || typeof alertChannel !== 'string') {
      actions.push(action);
      continue;
    }
    const live = channel(alertChannel);
    if (live === undefined) return null;
    actions.push({ ...action, metadata: { ...action.metadata, channel_id: live } });
  }
  return {
    ...rule,
    actions,
    exempt_roles: rule.exempt_roles.flatMap((id) => role(id) ?? []).sort(compareIds),
    exempt_channels: rule.exempt_channels.flatMap((id) => channel(id) ?? []).sort(compareIds),
  };
}

/**
 * The snapshot's AutoMod rules against the live guild's: a rule matched by id (or by the id a
 * restore made it under) is set back where it differs; a missing one is made anew, while its
 * trigger type has room (six KEYWORD rules, one of each other type); a live rule the snapshot does
 * not have is deleted. A rule whose trigger type changed cannot be edited into it: it is deleted
 * and made anew.
 */
export function diffAutoModRules(
  input: DiffInput,
  lookup: LiveLookup,
  pending: { roles: ReadonlySet<string>; channels: ReadonlySet<string> },
): AutoModSection {
  const section: AutoModSection = {
    automod_rules_to_create: [],
    automod_rules_to_update: [],
    automod_rules_to_delete: [],
    skipped: [],
  };
  const wanted = input.target.automod_rules;
  const live = input.expressions?.automodRules;
  const whole = (reason: string) => ({
    ...section,
    skipped: [{ scope: 'automod' as const, id: 'automod', name: 'automod', reason }],
  });
  if (!wanted) return whole(SKIP_REASON.automodNotInSnapshot);
  if (!live || !hasPermission(input.bot.permissions, PERMISSION.MANAGE_GUILD))
    return whole('the bot lacks the Manage Server permission');
  const liveById = new Map(live.map((rule) => [rule.id, rule]));
  const matched = new Set<string>();
  const missing: PlatformAutoModRule[] = [];
  for (const rule of [...wanted].sort(byId)) {
    const liveId = input.ids.resolve('automod_rule', rule.id);
    const current = liveId === undefined ? undefined : liveById.get(liveId);
    if (!current || current.trigger_type !== rule.trigger_type) {
      missing.push(rule);
      continue;
    }
    matched.add(current.id);
    const target = liveRule(rule, lookup, pending);
    if (!target) {
      section.skipped.push({
        scope: 'automod',
        id: rule.id,
        name: rule.name,
        reason: SKIP_REASON.alertChannelNotRestored,
      });
      continue;
    }
    const changed = RESTORED_AUTOMOD_FIELDS.filter(
      (field) => !isDeepStrictEqual(meaningful(current[field]), meaningful(target[field])),
    );
    if (changed.length > 0) {
      const update: UpdateItem<AutoModRuleItem> = {
        current: ruleItem(current),
        target: ruleItem(rule),
        changed_fields: [...changed],
      };
      section.automod_rules_to_update.push(update);
    }
  }
  section.automod_rules_to_delete = live
    .filter((rule) => !matched.has(rule.id))
    .map(ruleItem)
    .sort(byId);
  const held = new Map<number, number>();
  for (const id of matched) {
    const type = liveById.get(id)!.trigger_type;
    held.set(type, (held.get(type) ?? 0) + 1);
  }
  for (const rule of missing) {
    const skip = (reason: string) =>
      section.skipped.push({ scope: 'automod', id: rule.id, name: rule.name, reason });
    if (!liveRule(rule, lookup, pending)) skip(SKIP_REASON.alertChannelNotRestored);
    else if ((held.get(rule.trigger_type) ?? 0) >= autoModRuleCap(rule.trigger_type))
      skip(SKIP_REASON.automodCap);
    else {
      held.set(rule.trigger_type, (held.get(rule.trigger_type) ?? 0) + 1);
      section.automod_rules_to_create.push(ruleItem(rule));
    }
  }
  return section;
}
