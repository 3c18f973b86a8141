/** Where a guild the user can manage stands with the service. */
export const GUILD_STATUSES = ['registered', 'bot_present', 'bot_missing'] as const;
export type GuildStatus = (typeof GUILD_STATUSES)[number];

/** A guild the user can manage (MANAGE_GUILD, ADMINISTRATOR, or owner) on the platform. */
export class MyGuildView {
  /** The platform's id of the guild. */
  platform_guild_id: string;

  name: string;

  /** The platform's icon hash, or null. */
  icon: string | null;

  /** Whether the user owns the guild. */
  owner: boolean;

  /**
   * `registered`: protected by the service (`guild_id` names it); `bot_present`: the bot is in the
   * guild, which is not registered yet; `bot_missing`: the bot must be added first
   * (`bot_authorize_url`).
   */
  status: GuildStatus;

  /** The service's id of the guild once it is in the registry, else null. */
  guild_id: string | null;

  /** For `bot_missing`: the platform's page that adds the bot with the permissions restores need. */
  bot_authorize_url: string | null;
}

export class MyGuildsView {
  /** Registered guilds first, then those with the bot, then the rest; by name within each. */
  guilds: MyGuildView[];
}
