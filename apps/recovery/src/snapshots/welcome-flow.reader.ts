import {
  type ChatPlatformClient,
  type GuildSettings,
  isChatPlatformError,
  type PlatformOnboarding,
  type PlatformWelcomeScreen,
} from '@lib/chat-platform';

export const WELCOME_FLOW_UNREADABLE =
  'the bot may not read the welcome screen and onboarding (it needs the Manage Server permission)';

/** The guild's welcome screen (null: it has none) and onboarding, as a snapshot keeps them. */
export interface WelcomeFlow {
  welcome_screen: PlatformWelcomeScreen | null;
  onboarding: PlatformOnboarding;
}

/**
 * Reads what a new member of the guild is shown: its welcome screen (enabled as its features say)
 * and its onboarding. Both or neither: a refusal of either leaves them out, with why.
 */
export async function readWelcomeFlow(
  platform: ChatPlatformClient,
  guild: Pick<GuildSettings, 'id' | 'features'>,
): Promise<WelcomeFlow | { unreadable: string }> {
  try {
    const [welcomeScreen, onboarding] = await Promise.all([
      platform.getWelcomeScreen(guild.id, guild.features),
      platform.getOnboarding(guild.id),
    ]);
    return { welcome_screen: welcomeScreen, onboarding };
  } catch (error) {
    if (isChatPlatformError(error) && error.code === 'PermissionDenied')
      return { unreadable: WELCOME_FLOW_UNREADABLE };
    throw error;
  }
}
