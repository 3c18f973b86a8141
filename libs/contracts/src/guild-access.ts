/**
 * Recovery's answer to "may this user administer this guild?" (`GET /internal/v1/guilds/{id}/
 * access/{platform_user_id}`), for the services that guard guild-scoped routes.
 */
export interface GuildAccess {
  guild_id: string;
  platform_guild_id: string;
  name: string;
  /** The bot is installed and the guild has not been removed. */
  active: boolean;
  /**
   * MANAGE_GUILD on the guild, live from the platform for an active guild (the owner and
   * ADMINISTRATOR imply it); for an inactive one, whether the user is the owner recorded at
   * registration, since the platform no longer tells the bot.
   */
  manage_guild: boolean;
  owner_platform_user_id: string;
}
