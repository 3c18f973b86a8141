import { Matches } from 'class-validator';
import type { Guild } from './guild.entity';

export const SNOWFLAKE = /^[0-9]{1,20}$/;

export class RegisterGuildDto {
  @Matches(SNOWFLAKE, { message: 'platform_guild_id must be the platform guild id (digits)' })
  platform_guild_id: string;
}

export interface GuildView {
  id: string;
  platform_guild_id: string;
  name: string;
  active: boolean;
  bot_installed_at: string | null;
}

export function toGuildView(guild: Guild): GuildView {
  return {
    id: guild.id,
    platform_guild_id: guild.platformGuildId,
    name: guild.name,
    active: guild.active,
    bot_installed_at: guild.botInstalledAt?.toISOString() ?? null,
  };
}
