import type { Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { byteSize } from './time';

type AuditEntry = Pick<Schemas['AuditLogEntryView'], 'event_type' | 'payload'>;
type AuditQuery = NonNullable<paths['/api/v1/guilds/{guildId}/audit-log']['get']['parameters']['query']>;
/** The kinds of entry the API can filter by. */
export type AuditKind = NonNullable<AuditQuery['event_type']>;

/** What the reader knows that an entry only names by id. */
export interface AuditNames {
  /** The logged-in user's id: their own actions read "You …". */
  myUserId: string | null;
  /** Snapshot id -> its description, for the snapshots the page has loaded. */
  snapshots: ReadonlyMap<string, string>;
  /**
   * Our user id -> the name the guild knows them by (`GET /api/v1/guilds/{id}/member-names`), for
   * the users of the page whose names have arrived; anyone else reads "Another user".
   */
  users?: ReadonlyMap<string, string>;
  /** Platform user id -> name, likewise: AntiNuke's actors, payers named by their platform id. */
  platformUsers?: ReadonlyMap<string, string>;
}

/** Each kind of entry for the filter, in words, in the order a guild's life meets them. */
export const AUDIT_KINDS: Record<AuditKind, string> = {
  SnapshotCreated: 'Snapshot taken',
  RestoreStarted: 'Restore started',
  RestoreCompleted: 'Restore completed',
  RestoreFailed: 'Restore failed',
  RestoreCanceled: 'Restore canceled',
  AntiNukeIncidentOpened: 'AntiNuke incident',
  LockdownStarted: 'Lockdown started',
  LockdownLifted: 'Lockdown lifted',
  AntiNukeSettingsChanged: 'AntiNuke setting',
  SnapshotDeleted: 'Snapshot deleted',
  SnapshotUndeleted: 'Snapshot delete undone',
  BillingKeyIssued: 'Card registered',
  SubscriptionStarted: 'Subscription started',
  PaymentSucceeded: 'Payment',
  PlanUpgraded: 'Plan upgraded',
  PlanDowngradeScheduled: 'Downgrade scheduled',
  PlanDowngradeCanceled: 'Downgrade dropped',
  PlanDowngraded: 'Plan downgraded',
  SubscriptionCanceled: 'Cancellation scheduled',
  SubscriptionUncanceled: 'Cancellation undone',
  SubscriptionCardChanged: 'Card changed',
  SubscriptionCanceledPeriodEnd: 'Subscription ended',
  LicenseUpgraded: 'Licence upgraded',
  LicenseDowngraded: 'Licence downgraded',
};

const SCOPES: Record<string, string> = {
  roles: 'roles',
  channels: 'channels',
  permission_overrides: 'permission overrides',
  guild_settings: 'guild settings',
  member_roles: 'member roles',
  bans: 'bans',
};

const PLANS: Record<string, string> = { FREE: 'Free', PRO: 'Pro', ENTERPRISE: 'Enterprise' };

/** An AntiNuke action as a sentence says it: the verb, and what it acts on, one or many. */
const ACTIONS: Record<string, [verb: string, one: string, many: string]> = {
  channel_delete: ['delete', 'a channel', 'channels'],
  role_delete: ['delete', 'a role', 'roles'],
  member_ban: ['ban', 'a member', 'members'],
  member_kick: ['kick', 'a member', 'members'],
  member_prune: ['prune', 'members', 'prunes of members'],
  permission_grant: ['give', 'a role a dangerous permission', 'dangerous permissions to roles'],
  dangerous_role_grant: ['give', 'a member a dangerous role', 'dangerous roles to members'],
  member_role_remove: ['strip', "a member's roles", 'roles from members'],
  channel_overwrite: ['rewrite', "a channel's permissions", 'channel permissions'],
  webhook_create: ['create', 'a webhook', 'webhooks'],
  bot_add: ['add', 'a bot', 'bots'],
  vanity_url_change: ['change', 'the vanity URL', 'vanity URLs'],
  emoji_delete: ['delete', 'an emoji', 'emojis'],
  sticker_delete: ['delete', 'a sticker', 'stickers'],
  mixed: ['make', 'a destructive change', 'destructive changes'],
  bot_removed: ['remove', 'guildkeeper from the guild', 'bots'],
  bot_audit_log_lost: ['take', "guildkeeper's access to the audit log", 'permissions'],
};

const won = new Intl.NumberFormat('en-US');

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** `'before the raid'`, or `a snapshot` when the page does not know its description. */
function snapshot(id: unknown, names: AuditNames): string {
  const description = typeof id === 'string' ? names.snapshots.get(id) : undefined;
  return description ? `'${description}'` : 'a snapshot';
}

/**
 * "You" for the reader's own actions, else the name the guild knows the user by (looked up by our
 * user id, then by the platform id the entry may carry), else "another user".
 */
function who(userId: unknown, names: AuditNames, start: boolean, platformUserId?: unknown): string {
  const mine = typeof userId === 'string' && userId === names.myUserId;
  if (mine) return start ? 'You' : 'you';
  const name =
    (typeof userId === 'string' ? names.users?.get(userId) : undefined) ??
    (typeof platformUserId === 'string' ? names.platformUsers?.get(platformUserId) : undefined);
  if (name) return name;
  return start ? 'Another user' : 'another user';
}

/** A platform user as a page shows them: "alice (user 123…)" once their name is known, else "user 123…". */
export function platformUserLabel(
  platformUserId: string | null | undefined,
  platformUsers: ReadonlyMap<string, string> | undefined,
): string {
  if (!platformUserId) return 'user unknown';
  const name = platformUsers?.get(platformUserId);
  return name ? `${name} (user ${platformUserId})` : `user ${platformUserId}`;
}

/** The fields of a payload that name one of our users, and those that name a platform user. */
const USER_FIELDS = [
  'requested_by_user',
  'created_by_user',
  'payer_user_id',
  'started_by_user',
  'lifted_by_user',
] as const;
const PLATFORM_USER_FIELDS = [
  'requested_by_platform_user_id',
  'created_by_platform_user_id',
  'payer_platform_user_id',
  'actor_platform_user_id',
  'started_by_platform_user_id',
  'lifted_by_platform_user_id',
  'deleted_by_platform_user_id',
  'undeleted_by_platform_user_id',
] as const;

/** Who the entries name (ours and the platform's ids, each once, the reader left out): the names to ask for. */
export function namedUsers(entries: readonly Pick<AuditEntry, 'payload'>[], myUserId: string | null) {
  const users = new Set<string>();
  const platformUsers = new Set<string>();
  for (const { payload } of entries) {
    for (const field of USER_FIELDS) {
      const id = text(payload[field]);
      if (id && id !== myUserId) users.add(id);
    }
    for (const field of PLATFORM_USER_FIELDS) {
      const id = text(payload[field]);
      if (id) platformUsers.add(id);
    }
  }
  return { userIds: [...users].sort(), platformUserIds: [...platformUsers].sort() };
}

/** A platform user named in an entry: their name once known, else "user 123…". */
function platformUser(id: unknown, names: AuditNames): string {
  const platformUserId = text(id);
  return (
    (platformUserId && names.platformUsers?.get(platformUserId)) ?? `user ${platformUserId ?? 'unknown'}`
  );
}

/** AntiNuke's setting fields, as a sentence names them. */
const SETTING_FIELDS: Record<string, string> = {
  enabled: 'AntiNuke',
  exempt_user_ids: 'exemptions',
  threshold: 'threshold',
  window_seconds: 'window',
  auto_action_enabled: 'auto-action',
  auto_action_mode: 'auto-action mode',
  auto_lockdown_enabled: 'lockdown on an incident',
};

function settingValue(field: string, value: unknown): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (Array.isArray(value))
    return value.length ? `${value.length} user${value.length === 1 ? '' : 's'}` : 'nobody';
  if (field === 'window_seconds') return `${count(value)} s`;
  return String(value);
}

/** "threshold 3 → 10, AntiNuke on → off": the fields that differ, or "nothing". */
function settingChanges(before: unknown, after: unknown): string {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const parts = Object.keys(SETTING_FIELDS).flatMap((field) => {
    const from = settingValue(field, b[field]);
    const to = settingValue(field, a[field]);
    const same = JSON.stringify(b[field]) === JSON.stringify(a[field]);
    return same ? [] : [`${SETTING_FIELDS[field]} ${from} → ${to}`];
  });
  return parts.length ? parts.join(', ') : 'nothing';
}

function describeSettingsChange(p: Record<string, unknown>, names: AuditNames): string {
  const actor = platformUser(p.actor_platform_user_id, names);
  const requester = platformUser(p.requested_by_platform_user_id, names);
  const changes = settingChanges(p.before, p.after);
  switch (p.outcome) {
    case 'pending':
      return `${actor} asked to loosen AntiNuke (${changes}); it applies on ${day(p.applies_at)} unless the owner refuses it`;
    case 'approved':
      return `${actor} applied early the AntiNuke change ${requester} asked for (${changes})`;
    case 'refused':
      return `${actor} refused the AntiNuke change ${requester} asked for`;
    case 'applied_after_delay':
      return `The AntiNuke change ${requester} asked for applied after its delay (${changes})`;
    case 'self_exemption_refused':
      return `${actor} tried to exempt themself from AntiNuke and was refused`;
    default:
      return `${actor} changed AntiNuke (${changes})`;
  }
}

function plan(code: unknown): string {
  return (typeof code === 'string' && PLANS[code]) || String(code);
}

function day(iso: unknown): string {
  const at = text(iso);
  return at ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(at)) : 'its end';
}

function seconds(ms: number): string {
  const total = Math.round(ms / 1_000);
  const minutes = Math.floor(total / 60);
  return minutes ? `${minutes} min ${total % 60} s` : `${total} s`;
}

/** "3 roles created, 1 channel deleted": the changes a restore made, or none. */
function restoreChanges(summary: unknown): string {
  const s = (summary ?? {}) as Record<string, unknown>;
  const parts = (
    [
      ['roles_created', 'role', 'created'],
      ['roles_updated', 'role', 'updated'],
      ['roles_deleted', 'role', 'deleted'],
      ['channels_created', 'channel', 'created'],
      ['channels_updated', 'channel', 'updated'],
      ['channels_deleted', 'channel', 'deleted'],
      ['overrides_applied', 'permission override', 'applied'],
      ['overrides_removed', 'permission override', 'removed'],
      ['guild_settings_updated', 'guild setting', 'updated'],
      ['skipped', 'item', 'skipped'],
    ] as const
  ).flatMap(([key, noun, verb]) => {
    const n = count(s[key]);
    return n > 0 ? [`${n} ${noun}${n === 1 ? '' : 's'} ${verb}`] : [];
  });
  return parts.length ? parts.join(', ') : 'nothing needed changing';
}

/**
 * One audit-log entry as a sentence: "You started a restore of 'before the raid' (roles,
 * channels)". Reads the payload defensively: entries of older producers may lack a field, and a
 * kind this build does not know is named as the API names it.
 */
export function describeAuditEntry(entry: AuditEntry, names: AuditNames): string {
  const p = entry.payload;
  switch (entry.event_type as AuditKind) {
    case 'RestoreStarted': {
      const scope = Array.isArray(p.scope) ? p.scope.map((s) => SCOPES[String(s)] ?? String(s)) : [];
      return `${who(p.requested_by_user, names, true, p.requested_by_platform_user_id)} started a restore of ${snapshot(p.snapshot_id, names)}${
        scope.length ? ` (${scope.join(', ')})` : ''
      }`;
    }
    case 'RestoreCompleted':
      return `The restore of ${snapshot(p.snapshot_id, names)} that ${who(p.requested_by_user, names, false, p.requested_by_platform_user_id)} started completed in ${seconds(
        count(p.duration_ms),
      )}: ${restoreChanges(p.result_summary)}`;
    case 'RestoreFailed':
      return `The restore of ${snapshot(p.snapshot_id, names)} failed${
        text(p.error_message) ? `: ${text(p.error_message)}` : ''
      }`;
    case 'RestoreCanceled':
      return p.reason === 'guild_deleted'
        ? `The restore of ${snapshot(p.snapshot_id, names)} stopped: the guild was deleted`
        : `${who(p.requested_by_user, names, true, p.requested_by_platform_user_id)} canceled the restore of ${snapshot(p.snapshot_id, names)}`;
    case 'SnapshotCreated': {
      const size = typeof p.size === 'number' ? ` (${byteSize(p.size)})` : '';
      switch (p.trigger) {
        case 'scheduled':
          return `guildkeeper took the scheduled snapshot${size}`;
        case 'antinuke':
          return `AntiNuke took a snapshot during a raid${size}`;
        case 'pre_restore':
          return `guildkeeper took a snapshot before a restore${size}`;
        default:
          return `${who(p.created_by_user, names, true, p.created_by_platform_user_id)} took ${
            snapshot(p.snapshot_id, names) === 'a snapshot'
              ? 'a snapshot'
              : `the snapshot ${snapshot(p.snapshot_id, names)}`
          }${size}`;
      }
    }
    case 'AntiNukeIncidentOpened': {
      const n = count(p.count);
      const action = text(p.action) ?? '';
      const [verb, one, many] = ACTIONS[action] ?? ['act on', 'something', `× ${action}`];
      const what = n === 1 ? one : `${n} ${many}`;
      const actorId = text(p.actor_platform_user_id);
      const actor = actorId ? names.platformUsers?.get(actorId) : undefined;
      return `AntiNuke saw ${actor ?? `user ${actorId ?? 'unknown'}`} ${verb} ${what} and opened an incident${
        p.auto_action_taken === true
          ? actor
            ? `; ${actor}'s roles were taken away`
            : "; the user's roles were taken away"
          : ''
      }`;
    }
    case 'LockdownStarted': {
      const by = text(p.incident_id)
        ? 'AntiNuke (on an incident)'
        : who(p.started_by_user, names, true, p.started_by_platform_user_id);
      const until = text(p.lockdown_until);
      return `${by} locked the guild down until ${until ? new Date(until).toLocaleString() : 'its end'}: invites and DMs paused${
        p.send_messages_taken === true ? ', @everyone cannot send messages' : ''
      }`;
    }
    case 'LockdownLifted':
      return p.reason === 'expired'
        ? 'The lockdown lifted itself when its time was up'
        : `${who(p.lifted_by_user, names, true, p.lifted_by_platform_user_id)} lifted the lockdown`;
    case 'AntiNukeSettingsChanged':
      return describeSettingsChange(p, names);
    case 'SnapshotDeleted':
      return `${platformUser(p.deleted_by_platform_user_id, names)} deleted ${snapshot(p.snapshot_id, names)}; the owner can undo it until ${day(
        p.purge_after,
      )}`;
    case 'SnapshotUndeleted':
      return `${platformUser(p.undeleted_by_platform_user_id, names)} undid the delete of ${snapshot(p.snapshot_id, names)}`;
    case 'BillingKeyIssued':
      return `${who(p.payer_user_id, names, true)} registered a card for payments`;
    case 'SubscriptionStarted':
      return `${who(p.payer_user_id, names, true, p.payer_platform_user_id)} subscribed to the ${plan(p.plan_code)} plan (${won.format(
        count(p.amount_krw),
      )} KRW)`;
    case 'PaymentSucceeded':
      return `A payment of ${won.format(count(p.amount_krw))} KRW for the ${plan(p.plan_code)} plan succeeded${
        count(p.cycle) > 1 ? ` (renewal ${count(p.cycle)})` : ''
      }`;
    case 'PlanUpgraded':
      return `${who(p.payer_user_id, names, true, p.payer_platform_user_id)} upgraded the plan from ${plan(p.old_plan_code)} to ${plan(p.new_plan_code)}`;
    case 'PlanDowngradeScheduled':
      return `${who(p.payer_user_id, names, true)} scheduled a downgrade from ${plan(p.old_plan_code)} to ${plan(
        p.new_plan_code,
      )} on ${day(p.effective_at)}`;
    case 'PlanDowngradeCanceled':
      return `${who(p.requested_by_user ?? p.payer_user_id, names, true)} dropped the scheduled downgrade to ${plan(
        p.dropped_plan_code,
      )}: the ${plan(p.plan_code)} plan renews as it is`;
    case 'PlanDowngraded':
      return `The plan changed from ${plan(p.old_plan_code)} to ${plan(p.new_plan_code)}`;
    case 'SubscriptionCanceled':
      return `${who(p.requested_by_user, names, true, p.payer_platform_user_id)} canceled the ${plan(p.plan_code)} subscription: it ends on ${day(
        p.effective_at,
      )}`;
    case 'SubscriptionUncanceled':
      return `${who(p.requested_by_user, names, true)} undid the cancellation of the subscription`;
    case 'SubscriptionCardChanged':
      return `${who(p.payer_user_id, names, true, p.payer_platform_user_id)} changed the card the ${plan(p.plan_code)} subscription is charged on`;
    case 'SubscriptionCanceledPeriodEnd':
      return p.reason === 'payment_failed'
        ? `The ${plan(p.plan_code)} subscription ended after its payments failed`
        : `The ${plan(p.plan_code)} subscription ended, as scheduled`;
    case 'LicenseUpgraded':
    case 'LicenseDowngraded':
      return `The guild's plan is now ${plan(p.new_plan_code)} (was ${plan(p.old_plan_code)})`;
    default:
      return entry.event_type;
  }
}
