import type { APIGuildOnboarding, APIGuildWelcomeScreen } from 'discord-api-types/v10';

/**
 * What a new member of a Community guild is shown (resources/guild, "Welcome Screen Object",
 * "Guild Onboarding Object"), as the service keeps it: in the shape a modify request takes, so a
 * restore sends it back as read.
 */

/** The guild feature a Community guild needs for a welcome screen and an onboarding. */
export const COMMUNITY_FEATURE = 'COMMUNITY';
/** Whether the welcome screen is shown is this guild feature (set by the welcome screen's `enabled`). */
export const WELCOME_SCREEN_ENABLED_FEATURE = 'WELCOME_SCREEN_ENABLED';

export interface WelcomeChannel {
  channel_id: string;
  description: string;
  /** A custom emoji of the guild; null for a Unicode emoji (its character in `emoji_name`) or none. */
  emoji_id: string | null;
  emoji_name: string | null;
}

/** The welcome screen's fields a modify takes (`enabled` is the guild's WELCOME_SCREEN_ENABLED feature). */
export interface PlatformWelcomeScreen {
  enabled: boolean;
  description: string | null;
  welcome_channels: WelcomeChannel[];
}

export interface OnboardingPromptOption {
  id: string;
  title: string;
  description: string | null;
  /** A custom emoji of the guild; null for a Unicode emoji (its character in `emoji_name`) or none. */
  emoji_id: string | null;
  emoji_name: string | null;
  emoji_animated: boolean;
  role_ids: string[];
  channel_ids: string[];
}

export interface OnboardingPrompt {
  id: string;
  /** 0 MULTIPLE_CHOICE, 1 DROPDOWN. */
  type: number;
  title: string;
  options: OnboardingPromptOption[];
  single_select: boolean;
  required: boolean;
  in_onboarding: boolean;
}

export interface PlatformOnboarding {
  prompts: OnboardingPrompt[];
  default_channel_ids: string[];
  enabled: boolean;
  /** 0 ONBOARDING_DEFAULT, 1 ONBOARDING_ADVANCED. */
  mode: number;
}

/** The welcome screen as read, with whether it is enabled (from the guild's features). */
export function toPlatformWelcomeScreen(
  screen: APIGuildWelcomeScreen,
  features: readonly string[],
): PlatformWelcomeScreen {
  return {
    enabled: features.includes(WELCOME_SCREEN_ENABLED_FEATURE),
    description: screen.description ?? null,
    welcome_channels: screen.welcome_channels.map((channel) => ({
      channel_id: channel.channel_id,
      description: channel.description,
      emoji_id: channel.emoji_id ?? null,
      emoji_name: channel.emoji_name ?? null,
    })),
  };
}

/**
 * The onboarding as read. An option's emoji is answered as an `emoji` object and set as
 * `emoji_id`, `emoji_name` and `emoji_animated` ("Prompt Option Structure"): kept as it is set.
 */
export function toPlatformOnboarding(onboarding: APIGuildOnboarding): PlatformOnboarding {
  return {
    prompts: onboarding.prompts.map((prompt) => ({
      id: prompt.id,
      type: prompt.type,
      title: prompt.title,
      options: prompt.options.map((option) => ({
        id: option.id,
        title: option.title,
        description: option.description ?? null,
        emoji_id: option.emoji?.id ?? null,
        emoji_name: option.emoji?.name ?? null,
        emoji_animated: option.emoji?.animated ?? false,
        role_ids: [...option.role_ids],
        channel_ids: [...option.channel_ids],
      })),
      single_select: prompt.single_select,
      required: prompt.required,
      in_onboarding: prompt.in_onboarding,
    })),
    default_channel_ids: [...onboarding.default_channel_ids],
    enabled: onboarding.enabled,
    mode: onboarding.mode,
  };
}
