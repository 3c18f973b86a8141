import {
  AuditLogEvent,
  GatewayDispatchEvents,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { changesOf } from '../audit-log';
import { readRuleFields } from '../automod-rule-form';
import { type FakeAutoModRule, RULES_PER_TRIGGER, autoModRuleWire } from '../automod-rules';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import type { GuildChange } from '../guild-change';
import { platformError } from '../platform-error';
import type { FakeGuild } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { type PlatformRoute, noContent, ok } from './platform-route';

/**
 * Discord's AutoMod rule routes (resources/auto-moderation): List, Get, Create, Modify and Delete
 * Auto Moderation Rule, each needing MANAGE_GUILD ("Auto Moderation Permission Requirements"); the
 * rule's fields and limits are read by `../automod-rule-form.ts`. At most so many rules of each
 * trigger type (`RULES_PER_TRIGGER`). Each change is an audit-log entry
 * (AUTO_MODERATION_RULE_CREATE/UPDATE/DELETE) and a gateway event of the same name with the rule,
 * for sessions with the AUTO_MODERATION_CONFIGURATION intent whose bot holds MANAGE_GUILD
 * (events/gateway-events, "Auto Moderation"). Create answers 200, as the OpenAPI document declares.
 */

const { ManageGuild: MANAGE_GUILD } = PermissionFlagsBits;

const AUDITED = [
  'name',
  'event_type',
  'trigger_type',
  'trigger_metadata',
  'actions',
  'enabled',
  'exempt_roles',
  'exempt_channels',
] as const;

const EVENTS = {
  [AuditLogEvent.AutoModerationRuleCreate]: GatewayDispatchEvents.AutoModerationRuleCreate,
  [AuditLogEvent.AutoModerationRuleUpdate]: GatewayDispatchEvents.AutoModerationRuleUpdate,
  [AuditLogEvent.AutoModerationRuleDelete]: GatewayDispatchEvents.AutoModerationRuleDelete,
} as const;

function managedGuild(store: PlatformStore, guildId: string, actorId: string): FakeGuild {
  const guild = store.guild(guildId, actorId);
  new BotAuthority(guild, actorId).require(MANAGE_GUILD);
  return guild;
}

function findRule(store: PlatformStore, guild: FakeGuild, id: string): FakeAutoModRule {
  const rule = store.autoModRules.of(guild.id).find((candidate) => candidate.id === id);
  if (!rule) throw platformError.unknownAutoModRule();
  return rule;
}

function ruleChange(
  rule: FakeAutoModRule,
  action: keyof typeof EVENTS,
  changes: ReturnType<typeof changesOf>,
): GuildChange {
  return {
    kind: 'entry',
    guildId: rule.guild_id,
    entry: { target_id: rule.id, action_type: action, changes },
    dispatch: {
      event: EVENTS[action],
      data: autoModRuleWire(rule),
      intent: GatewayIntentBits.AutoModerationConfiguration,
      permission: MANAGE_GUILD,
    },
  };
}

export const autoModerationRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/auto-moderation/rules',
    handle: ({ params, actorId }, store) => {
      const guild = managedGuild(store, params.guild_id, actorId);
      return ok(store.autoModRules.of(guild.id).map(autoModRuleWire));
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/auto-moderation/rules/:rule_id',
    handle: ({ params, actorId }, store) => {
      const guild = managedGuild(store, params.guild_id, actorId);
      return ok(autoModRuleWire(findRule(store, guild, params.rule_id)));
    },
  },
  {
    method: 'POST',
    path: '/guilds/:guild_id/auto-moderation/rules',
    handle: ({ params, body, actorId }, store) => {
      const guild = managedGuild(store, params.guild_id, actorId);
      const fields = readRuleFields(FormBody.object(body), guild, actorId);
      const trigger = fields.trigger_type!;
      const rules = store.autoModRules.of(guild.id);
      if (rules.filter((rule) => rule.trigger_type === trigger).length >= RULES_PER_TRIGGER[trigger]) {
        // The docs give the caps ("Max per Guild") but not the answer; the fake's is an Invalid
        // Form Body on `trigger_type`, with a code of its own.
        throw platformError.invalidFormBody({
          trigger_type: {
            _errors: [
              {
                code: 'AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED',
                message: `Maximum number of rules of this type reached (${RULES_PER_TRIGGER[trigger]}).`,
              },
            ],
          },
        });
      }
      const rule: FakeAutoModRule = {
        id: store.ids.next(),
        guild_id: guild.id,
        name: fields.name!,
        creator_id: actorId,
        event_type: fields.event_type!,
        trigger_type: trigger,
        trigger_metadata: fields.trigger_metadata ?? {},
        actions: fields.actions!,
        enabled: fields.enabled ?? false,
        exempt_roles: fields.exempt_roles ?? [],
        exempt_channels: fields.exempt_channels ?? [],
      };
      rules.push(rule);
      const change = ruleChange(rule, AuditLogEvent.AutoModerationRuleCreate, changesOf(null, rule, AUDITED));
      return ok(autoModRuleWire(rule), [change]);
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/auto-moderation/rules/:rule_id',
    handle: ({ params, body, actorId }, store) => {
      const guild = managedGuild(store, params.guild_id, actorId);
      const rule = findRule(store, guild, params.rule_id);
      const fields = readRuleFields(FormBody.object(body ?? {}), guild, actorId, rule);
      const before = structuredClone(rule);
      Object.assign(rule, fields);
      const changes = changesOf(before, rule, AUDITED);
      if (changes.length === 0) return ok(autoModRuleWire(rule));
      return ok(autoModRuleWire(rule), [ruleChange(rule, AuditLogEvent.AutoModerationRuleUpdate, changes)]);
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/auto-moderation/rules/:rule_id',
    handle: ({ params, actorId }, store) => {
      const guild = managedGuild(store, params.guild_id, actorId);
      const rule = findRule(store, guild, params.rule_id);
      const rules = store.autoModRules.of(guild.id);
      rules.splice(rules.indexOf(rule), 1);
      return noContent([
        ruleChange(rule, AuditLogEvent.AutoModerationRuleDelete, changesOf(rule, null, AUDITED)),
      ]);
    },
  },
];
