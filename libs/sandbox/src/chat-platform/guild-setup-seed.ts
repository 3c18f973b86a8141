import { randomBytes } from 'node:crypto';
import type { FakeAutoModAction, FakeTriggerMetadata, TriggerType } from './automod-rules';
import type { ExpressionImage } from './expression-images';
import type { PlatformStore } from './platform-store';
import { WELCOME_SCREEN_ENABLED } from './welcome-flow';

/**
 * What a guild spec may add to a seeded guild beyond its roles, channels and members: AutoMod
 * rules, webhooks, a welcome screen and an onboarding flow, each naming roles, channels and emojis
 * of the spec. Seeded straight into the store, without the routes' checks, audit-log entries or
 * gateway events (the test's world), so a test may start from a guild a raid then changes.
 */

/** An action of a rule; the alert channel by name. */
export type AutoModActionSpec =
  | { type: 1; custom_message?: string }
  | { type: 2; channel: string }
  | { type: 3; duration_seconds: number }
  | { type: 4 };

export interface AutoModRuleSpec {
  name: string;
  /** Default 1 (KEYWORD). */
  trigger_type?: TriggerType;
  /** Default: a keyword "spam" (KEYWORD, MEMBER_PROFILE), PROFANITY (KEYWORD_PRESET), 10 mentions (MENTION_SPAM). */
  trigger_metadata?: FakeTriggerMetadata;
  /** Default one BLOCK_MESSAGE (BLOCK_MEMBER_INTERACTION on MEMBER_PROFILE). */
  actions?: AutoModActionSpec[];
  /** Default true. */
  enabled?: boolean;
  exemptRoles?: string[];
  exemptChannels?: string[];
}

/** An incoming webhook in a channel of the spec, as created by the guild's owner. */
export interface WebhookSpec {
  name: string;
  channel: string;
  /** Served by the CDN under its hash; default none. */
  avatar?: { hash: string; image: ExpressionImage };
}

/** Needs the COMMUNITY feature in the spec's `features`. */
export interface WelcomeScreenSpec {
  /** Default true: the guild gets WELCOME_SCREEN_ENABLED. */
  enabled?: boolean;
  description?: string | null;
  channels: { channel: string; description: string; emoji_name?: string | null; emoji?: string }[];
}

export interface OnboardingSpec {
  /** Default false; the requirements are not checked here. */
  enabled?: boolean;
  mode?: 0 | 1;
  defaultChannels?: string[];
  prompts?: {
    title: string;
    type?: 0 | 1;
    single_select?: boolean;
    required?: boolean;
    in_onboarding?: boolean;
    options: {
      title: string;
      description?: string | null;
      emoji_name?: string;
      roles?: string[];
      channels?: string[];
    }[];
  }[];
}

export interface GuildSetupSpec {
  autoModRules?: AutoModRuleSpec[];
  webhooks?: WebhookSpec[];
  welcomeScreen?: WelcomeScreenSpec;
  onboarding?: OnboardingSpec;
}

/** Ids by name. */
export interface SeededSetup {
  autoModRules: Record<string, string>;
  webhooks: Record<string, string>;
}

interface SpecIds {
  roles: Record<string, string>;
  channels: Record<string, string>;
  emojis: Record<string, string>;
}

const DEFAULT_METADATA: Record<TriggerType, FakeTriggerMetadata> = {
  1: { keyword_filter: ['spam'], regex_patterns: [], allow_list: [] },
  3: {},
  4: { allow_list: [], presets: [1] },
  5: { mention_total_limit: 10, mention_raid_protection_enabled: false },
  6: { keyword_filter: ['spam'], regex_patterns: [], allow_list: [] },
};

function lookup(ids: Record<string, string>, name: string, what: string): string {
  const id = ids[name];
  if (id === undefined) throw new Error(`guild spec names an unknown ${what} "${name}"`);
  return id;
}

function action(spec: AutoModActionSpec, ids: SpecIds): FakeAutoModAction {
  switch (spec.type) {
    case 1:
      return { type: 1, metadata: spec.custom_message ? { custom_message: spec.custom_message } : {} };
    case 2:
      return { type: 2, metadata: { channel_id: lookup(ids.channels, spec.channel, 'channel') } };
    case 3:
      return { type: 3, metadata: { duration_seconds: spec.duration_seconds } };
    case 4:
      return { type: 4, metadata: {} };
  }
}

/** Seeds the spec's setup into the guild, owned (created) by `ownerId`. */
export function seedGuildSetup(
  store: PlatformStore,
  guildId: string,
  ownerId: string,
  spec: GuildSetupSpec,
  ids: SpecIds,
): SeededSetup {
  const seeded: SeededSetup = { autoModRules: {}, webhooks: {} };
  for (const rule of spec.autoModRules ?? []) {
    const trigger = rule.trigger_type ?? 1;
    const id = store.ids.next();
    store.autoModRules.of(guildId).push({
      id,
      guild_id: guildId,
      name: rule.name,
      creator_id: ownerId,
      event_type: trigger === 6 ? 2 : 1,
      trigger_type: trigger,
      trigger_metadata: structuredClone(rule.trigger_metadata ?? DEFAULT_METADATA[trigger]),
      actions: (rule.actions ?? [{ type: trigger === 6 ? 4 : 1 }]).map((a) => action(a, ids)),
      enabled: rule.enabled ?? true,
      exempt_roles: (rule.exemptRoles ?? []).map((name) => lookup(ids.roles, name, 'role')),
      exempt_channels: (rule.exemptChannels ?? []).map((name) => lookup(ids.channels, name, 'channel')),
    });
    seeded.autoModRules[rule.name] = id;
  }
  for (const webhook of spec.webhooks ?? []) {
    const id = store.ids.next();
    store.webhooks.set(id, {
      id,
      type: 1,
      guild_id: guildId,
      channel_id: lookup(ids.channels, webhook.channel, 'channel'),
      creator_id: ownerId,
      name: webhook.name,
      avatar: webhook.avatar?.hash ?? null,
      token: randomBytes(34).toString('base64url'),
    });
    store.webhookAvatars.set(id, webhook.avatar ?? null);
    seeded.webhooks[webhook.name] = id;
  }
  if (spec.welcomeScreen) seedWelcomeScreen(store, guildId, spec.welcomeScreen, ids);
  if (spec.onboarding) seedOnboarding(store, guildId, spec.onboarding, ids);
  return seeded;
}

function seedWelcomeScreen(store: PlatformStore, guildId: string, spec: WelcomeScreenSpec, ids: SpecIds) {
  const guild = store.guilds.get(guildId)!;
  if (!guild.features.includes('COMMUNITY')) throw new Error('a welcome screen needs the COMMUNITY feature');
  store.welcomeFlows.setWelcomeScreen(guildId, {
    description: spec.description ?? null,
    welcome_channels: spec.channels.map((channel) => ({
      channel_id: lookup(ids.channels, channel.channel, 'channel'),
      description: channel.description,
      emoji_id: channel.emoji ? lookup(ids.emojis, channel.emoji, 'emoji') : null,
      emoji_name: channel.emoji ?? channel.emoji_name ?? null,
    })),
  });
  if (spec.enabled ?? true) guild.features.push(WELCOME_SCREEN_ENABLED);
}

function seedOnboarding(store: PlatformStore, guildId: string, spec: OnboardingSpec, ids: SpecIds) {
  store.welcomeFlows.setOnboarding(guildId, {
    prompts: (spec.prompts ?? []).map((prompt) => ({
      id: store.ids.next(),
      type: prompt.type ?? 0,
      title: prompt.title,
      single_select: prompt.single_select ?? false,
      required: prompt.required ?? false,
      in_onboarding: prompt.in_onboarding ?? true,
      options: prompt.options.map((option) => ({
        id: store.ids.next(),
        title: option.title,
        description: option.description ?? null,
        emoji_id: null,
        emoji_name: option.emoji_name ?? null,
        emoji_animated: false,
        role_ids: (option.roles ?? []).map((name) => lookup(ids.roles, name, 'role')),
        channel_ids: (option.channels ?? []).map((name) => lookup(ids.channels, name, 'channel')),
      })),
    })),
    default_channel_ids: (spec.defaultChannels ?? []).map((name) => lookup(ids.channels, name, 'channel')),
    enabled: spec.enabled ?? false,
    mode: spec.mode ?? 0,
  });
}
