/**
 * A guild's AutoMod rules (resources/auto-moderation), in the platform's field names, and the
 * documented limits a rule is held to.
 */

/** 1 KEYWORD, 3 SPAM, 4 KEYWORD_PRESET, 5 MENTION_SPAM, 6 MEMBER_PROFILE ("Trigger Types"). */
export type TriggerType = 1 | 3 | 4 | 5 | 6;

/** 1 BLOCK_MESSAGE, 2 SEND_ALERT_MESSAGE, 3 TIMEOUT, 4 BLOCK_MEMBER_INTERACTION ("Action Types"). */
export interface FakeAutoModAction {
  type: 1 | 2 | 3 | 4;
  /** `custom_message` (1), `channel_id` (2), `duration_seconds` (3); empty for 4. */
  metadata: { custom_message?: string; channel_id?: string; duration_seconds?: number };
}

/**
 * The metadata fields a trigger type has ("Trigger Metadata", "Associated Trigger Types"); the
 * rule keeps only these, each always present (empty lists, `mention_raid_protection_enabled`
 * false), as the answers' schemas in Discord's OpenAPI document have them.
 */
export interface FakeTriggerMetadata {
  keyword_filter?: string[];
  regex_patterns?: string[];
  allow_list?: string[];
  presets?: (1 | 2 | 3)[];
  mention_total_limit?: number;
  mention_raid_protection_enabled?: boolean;
}

export interface FakeAutoModRule {
  id: string;
  guild_id: string;
  name: string;
  creator_id: string;
  /** 1 MESSAGE_SEND, 2 MEMBER_UPDATE. */
  event_type: 1 | 2;
  trigger_type: TriggerType;
  trigger_metadata: FakeTriggerMetadata;
  actions: FakeAutoModAction[];
  enabled: boolean;
  exempt_roles: string[];
  exempt_channels: string[];
}

/** "Max per Guild" of each trigger type. */
export const RULES_PER_TRIGGER: Record<TriggerType, number> = { 1: 6, 3: 1, 4: 1, 5: 1, 6: 1 };

/** The metadata fields each trigger type takes and answers. */
export const METADATA_FIELDS: Record<TriggerType, readonly (keyof FakeTriggerMetadata)[]> = {
  1: ['keyword_filter', 'regex_patterns', 'allow_list'],
  3: [],
  4: ['allow_list', 'presets'],
  5: ['mention_total_limit', 'mention_raid_protection_enabled'],
  6: ['keyword_filter', 'regex_patterns', 'allow_list'],
};

/** "Trigger Metadata Field Limits": at most so many strings, each at most so many characters. */
export const METADATA_LIMITS = {
  keyword_filter: { items: 1000, characters: 60 },
  regex_patterns: { items: 10, characters: 260 },
  /** 100 on KEYWORD and MEMBER_PROFILE rules, 1000 on KEYWORD_PRESET ones. */
  allow_list: { items: 100, presetItems: 1000, characters: 60 },
} as const;

export const MAX_MENTION_TOTAL_LIMIT = 50;
export const MAX_EXEMPT_ROLES = 20;
export const MAX_EXEMPT_CHANNELS = 50;
/** A TIMEOUT action's longest duration: four weeks. */
export const MAX_TIMEOUT_SECONDS = 2_419_200;
export const MAX_CUSTOM_MESSAGE = 150;

/** A rule as the API answers it and the gateway reports it. */
export function autoModRuleWire(rule: FakeAutoModRule) {
  return structuredClone(rule);
}

/** Each guild's rules, oldest first. */
export class AutoModRules {
  private readonly byGuild = new Map<string, FakeAutoModRule[]>();

  of(guildId: string): FakeAutoModRule[] {
    let rules = this.byGuild.get(guildId);
    if (!rules) this.byGuild.set(guildId, (rules = []));
    return rules;
  }

  dropGuild(guildId: string): void {
    this.byGuild.delete(guildId);
  }

  clear(): void {
    this.byGuild.clear();
  }
}
