import { PermissionFlagsBits } from 'discord-api-types/v10';

/**
 * The permissions the bot is invited with, each for what needs it, and nothing else:
 * - ViewChannel: see every channel it snapshots and restores, private ones included;
 * - ManageChannels: recreate, reorder, rename and delete channels (the `channels` scope);
 * - ManageRoles: recreate, reorder and edit roles, set channel overrides (`roles`,
 *   `permission_overrides`), and take an actor's roles away (AntiNuke's auto-action);
 * - ManageGuild: put the guild's settings back (`guild_settings`);
 * - ViewAuditLog: learn who deleted what (live sync and AntiNuke).
 * The platform lets a bot grant, in a role or an override, only permissions it holds itself: a
 * restore lists what it cannot grant under `skipped` ("grants permissions the bot does not hold").
 */
export const BOT_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.ManageChannels |
  PermissionFlagsBits.ManageRoles |
  PermissionFlagsBits.ManageGuild |
  PermissionFlagsBits.ViewAuditLog;

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
