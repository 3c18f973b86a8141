import { BOT_PERMISSIONS } from '@lib/chat-platform';

export interface BotInviteOptions {
  /** The platform's site (`DISCORD_OAUTH_URL`), where its authorize page is. */
  oauthBaseUrl: string;
  clientId: string;
}

/** The platform's page that adds the bot to one guild (preselected) with `BOT_PERMISSIONS`. */
export function botInviteUrl(options: BotInviteOptions, platformGuildId: string): string {
  const url = new URL('/oauth2/authorize', options.oauthBaseUrl);
  url.search = new URLSearchParams({
    client_id: options.clientId,
    scope: 'bot applications.commands',
    permissions: BOT_PERMISSIONS.toString(),
    guild_id: platformGuildId,
    disable_guild_select: 'true',
  }).toString();
  return url.toString();
}
