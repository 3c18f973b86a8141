/**
 * What a new member of a guild is shown: its welcome screen and its onboarding flow
 * (resources/guild, "Welcome Screen Object", "Guild Onboarding Object"), in the platform's field
 * names. Whether the welcome screen is enabled is the guild's WELCOME_SCREEN_ENABLED feature.
 */

export interface FakeWelcomeChannel {
  channel_id: string;
  description: string;
  emoji_id: string | null;
  emoji_name: string | null;
}

export interface FakeWelcomeScreen {
  description: string | null;
  welcome_channels: FakeWelcomeChannel[];
}

export interface FakePromptOption {
  id: string;
  title: string;
  description: string | null;
  emoji_id: string | null;
  emoji_name: string | null;
  emoji_animated: boolean;
  role_ids: string[];
  channel_ids: string[];
}

export interface FakeOnboardingPrompt {
  id: string;
  /** 0 MULTIPLE_CHOICE, 1 DROPDOWN. */
  type: 0 | 1;
  title: string;
  options: FakePromptOption[];
  single_select: boolean;
  required: boolean;
  in_onboarding: boolean;
}

export interface FakeOnboarding {
  prompts: FakeOnboardingPrompt[];
  default_channel_ids: string[];
  enabled: boolean;
  /** 0 ONBOARDING_DEFAULT, 1 ONBOARDING_ADVANCED. */
  mode: 0 | 1;
}

export const WELCOME_SCREEN_ENABLED = 'WELCOME_SCREEN_ENABLED';
export const MAX_WELCOME_CHANNELS = 5;

/** The onboarding of a guild that never set one up: off, nothing in it. */
export const NO_ONBOARDING: FakeOnboarding = {
  prompts: [],
  default_channel_ids: [],
  enabled: false,
  mode: 0,
};

export function welcomeScreenWire(screen: FakeWelcomeScreen) {
  return structuredClone(screen);
}

/**
 * The onboarding object. An option's emoji is answered as an `emoji` object (the fields
 * `emoji_id`, `emoji_name` and `emoji_animated` are what a request sets: "Prompt Option
 * Structure"), as the OpenAPI document's `OnboardingPromptOptionResponse` has it.
 */
export function onboardingWire(guildId: string, onboarding: FakeOnboarding) {
  return {
    guild_id: guildId,
    prompts: onboarding.prompts.map((prompt) => ({
      id: prompt.id,
      title: prompt.title,
      options: prompt.options.map((option) => ({
        id: option.id,
        title: option.title,
        description: option.description ?? '',
        emoji: { id: option.emoji_id, name: option.emoji_name, animated: option.emoji_animated },
        role_ids: [...option.role_ids],
        channel_ids: [...option.channel_ids],
      })),
      single_select: prompt.single_select,
      required: prompt.required,
      in_onboarding: prompt.in_onboarding,
      type: prompt.type,
    })),
    default_channel_ids: [...onboarding.default_channel_ids],
    enabled: onboarding.enabled,
    mode: onboarding.mode,
  };
}

/** Each guild's welcome screen (none until set) and onboarding (NO_ONBOARDING until set). */
export class WelcomeFlows {
  private readonly screens = new Map<string, FakeWelcomeScreen>();
  private readonly onboardings = new Map<string, FakeOnboarding>();

  welcomeScreen(guildId: string): FakeWelcomeScreen | undefined {
    return this.screens.get(guildId);
  }

  setWelcomeScreen(guildId: string, screen: FakeWelcomeScreen): void {
    this.screens.set(guildId, screen);
  }

  /** The guild's onboarding, undefined while it never set one up. */
  onboarding(guildId: string): FakeOnboarding | undefined {
    return this.onboardings.get(guildId);
  }

  setOnboarding(guildId: string, onboarding: FakeOnboarding): void {
    this.onboardings.set(guildId, onboarding);
  }

  dropGuild(guildId: string): void {
    this.screens.delete(guildId);
    this.onboardings.delete(guildId);
  }

  clear(): void {
    this.screens.clear();
    this.onboardings.clear();
  }
}
