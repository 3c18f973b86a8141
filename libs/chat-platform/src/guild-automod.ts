import type { APIAutoModerationRule } from 'discord-api-types/v10';

/**
 * A guild's AutoMod rule as the service keeps it (resources/auto-moderation): what triggers it,
 * what it does, and who is exempt. Metadata is kept as the platform answers it (its fields depend
 * on the trigger and action types, and the platform adds new ones): a restore sends it back whole.
 */
export interface AutoModAction {
  /** 1 BLOCK_MESSAGE, 2 SEND_ALERT_MESSAGE (metadata.channel_id), 3 TIMEOUT, 4 BLOCK_MEMBER_INTERACTION. */
  type: number;
  metadata: Record<string, unknown>;
}

export interface PlatformAutoModRule {
  id: string;
  name: string;
  /** 1 MESSAGE_SEND, 2 MEMBER_UPDATE. */
  event_type: number;
  /** 1 KEYWORD, 3 SPAM, 4 KEYWORD_PRESET, 5 MENTION_SPAM, 6 MEMBER_PROFILE; it cannot be changed. */
  trigger_type: number;
  trigger_metadata: Record<string, unknown>;
  actions: AutoModAction[];
  enabled: boolean;
  exempt_roles: string[];
  exempt_channels: string[];
}

export type AutoModRuleInput = Omit<PlatformAutoModRule, 'id'>;
export type AutoModRuleUpdate = Partial<Omit<PlatformAutoModRule, 'id' | 'trigger_type'>>;

/** The action whose metadata names a channel: where the alert goes. */
export const AUTOMOD_ALERT_ACTION = 2;

/**
 * Rules a guild may hold per trigger type (resources/auto-moderation, "Trigger Types"): six
 * KEYWORD rules, one of each other type.
 */
export function autoModRuleCap(triggerType: number): number {
  return triggerType === 1 ? 6 : 1;
}

export function toPlatformAutoModRule(rule: APIAutoModerationRule): PlatformAutoModRule {
  return {
    id: rule.id,
    name: rule.name,
    event_type: rule.event_type,
    trigger_type: rule.trigger_type,
    trigger_metadata: { ...(rule.trigger_metadata as Record<string, unknown>) },
    actions: rule.actions.map((action) => ({
      type: action.type,
      metadata: { ...((action.metadata ?? {}) as Record<string, unknown>) },
    })),
    enabled: rule.enabled,
    exempt_roles: [...rule.exempt_roles].sort(),
    exempt_channels: [...rule.exempt_channels].sort(),
  };
}
