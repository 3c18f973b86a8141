import { AuditLogEvent, PermissionFlagsBits } from 'discord-api-types/v10';
import { type FakeAuditLogEntry, auditLogEntryWire } from '../audit-log';
import { autoModRuleWire } from '../automod-rules';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import type { PlatformStore } from '../platform-store';
import { userWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';
import { webhookWire } from './webhooks.routes';

const INTEGER_PARAMETERS = ['limit', 'action_type'];

/** Entries whose target is a user, whom the answer's `users` then includes. */
const USER_TARGETED: readonly AuditLogEvent[] = [
  AuditLogEvent.MemberKick,
  AuditLogEvent.MemberBanAdd,
  AuditLogEvent.MemberBanRemove,
  AuditLogEvent.MemberUpdate,
  AuditLogEvent.MemberRoleUpdate,
];

function usersOf(entries: FakeAuditLogEntry[], store: PlatformStore) {
  const ids = new Set<string>();
  for (const entry of entries) {
    ids.add(entry.user_id);
    if (entry.target_id && USER_TARGETED.includes(entry.action_type)) ids.add(entry.target_id);
  }
  return [...ids].flatMap((id) => {
    const user = store.users.get(id);
    return user ? [userWire(user)] : [];
  });
}

const WEBHOOK_ENTRIES: readonly AuditLogEvent[] = [
  AuditLogEvent.WebhookCreate,
  AuditLogEvent.WebhookUpdate,
  AuditLogEvent.WebhookDelete,
];
const RULE_ENTRIES: readonly AuditLogEvent[] = [
  AuditLogEvent.AutoModerationRuleCreate,
  AuditLogEvent.AutoModerationRuleUpdate,
  AuditLogEvent.AutoModerationRuleDelete,
];

/** The ids the entries of these action types target. */
function targetsOf(entries: FakeAuditLogEntry[], types: readonly AuditLogEvent[]): Set<string> {
  return new Set(
    entries.flatMap((entry) =>
      types.includes(entry.action_type) && entry.target_id ? [entry.target_id] : [],
    ),
  );
}

/**
 * The webhooks and AutoMod rules the entries refer to ("List of webhooks referenced in the audit
 * log"): those that still exist (the platform's answer for a deleted one is not documented).
 */
function referencedSetup(entries: FakeAuditLogEntry[], guildId: string, store: PlatformStore) {
  const webhookIds = targetsOf(entries, WEBHOOK_ENTRIES);
  const ruleIds = targetsOf(entries, RULE_ENTRIES);
  return {
    webhooks: [...webhookIds].flatMap((id) => {
      const webhook = store.webhooks.get(id);
      return webhook ? [webhookWire(webhook, store)] : [];
    }),
    auto_moderation_rules: store.autoModRules
      .of(guildId)
      .filter((rule) => ruleIds.has(rule.id))
      .map(autoModRuleWire),
  };
}

export const auditLogRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/audit-logs',
    handle: ({ params, query, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(PermissionFlagsBits.ViewAuditLog);
      const form = FormBody.query(query, INTEGER_PARAMETERS);
      const limit = form.integer('limit', { min: 1, max: 100 }) ?? 50;
      const actionType = form.integer('action_type', { min: 1 }) as AuditLogEvent | null | undefined;
      const userId = form.snowflake('user_id');
      const before = form.snowflake('before');
      const after = form.snowflake('after');
      form.check();
      const matching = store.auditLogs
        .entries(guild.id)
        .filter(
          (entry) =>
            (userId == null || entry.user_id === userId) &&
            (actionType == null || entry.action_type === actionType) &&
            (before == null || BigInt(entry.id) < BigInt(before)) &&
            (after == null || BigInt(entry.id) > BigInt(after)),
        );
      // Newest first; paging forward with `after` alone gives the entries just after it.
      const page = after != null && before == null ? matching.slice(0, limit) : matching.slice(-limit);
      const entries = page.reverse();
      return ok({
        audit_log_entries: entries.map(auditLogEntryWire),
        users: usersOf(entries, store),
        application_commands: [],
        guild_scheduled_events: [],
        integrations: [],
        threads: [],
        ...referencedSetup(entries, guild.id, store),
      });
    },
  },
];
