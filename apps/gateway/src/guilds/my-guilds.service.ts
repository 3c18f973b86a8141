import { Inject, Injectable } from '@nestjs/common';
import { PERMISSION, hasPermission } from '@lib/chat-platform';
import { TtlCache } from '@lib/runtime';
import {
  platformAccessRefused,
  PlatformOAuthClient,
  type PlatformUserGuild,
} from '../auth/platform-oauth.client';
import type { Session } from '../auth/sessions';
import { Sessions } from '../auth/sessions';
import { type BotInviteOptions, botInviteUrl } from './bot-invite';
import { GuildRegistryClient } from './guild-registry.client';
import { GUILD_STATUSES, type GuildStatus, type MyGuildView, type MyGuildsView } from './my-guilds.dto';

export const BOT_INVITE = Symbol('BOT_INVITE');

/**
 * How long a session's guild list from the platform is reused: the picker may be opened often, and
 * the platform limits the route per token; who can manage a guild seldom changes within it.
 */
export const USER_GUILDS_TTL_MS = 30_000;

/** Whether the user's own bits on a guild let them manage it here (the owner holds every bit). */
function canManage(guild: PlatformUserGuild): boolean {
  const bits = BigInt(guild.permissions);
  return (
    guild.owner ||
    hasPermission(bits, PERMISSION.ADMINISTRATOR) ||
    hasPermission(bits, PERMISSION.MANAGE_GUILD)
  );
}

/**
 * `GET /api/v1/me/guilds`: the guilds the user can manage, read from the platform with the user's
 * own access token (OAuth `guilds` scope, kept sealed in the session), each with where it stands
 * here according to recovery's registry and the bot's presence.
 */
@Injectable()
export class MyGuilds {
  private readonly lists = new TtlCache<PlatformUserGuild[]>(USER_GUILDS_TTL_MS);

  constructor(
    private readonly oauth: PlatformOAuthClient,
    private readonly sessions: Sessions,
    private readonly registry: GuildRegistryClient,
    @Inject(BOT_INVITE) private readonly invite: BotInviteOptions,
  ) {}

  async list(session: Session, sessionToken: string): Promise<MyGuildsView> {
    const managed = (await this.guildsOf(session, sessionToken)).filter(canManage);
    const standing = new Map(
      (await this.registry.lookup(managed.map((guild) => guild.id))).map((entry) => [
        entry.platform_guild_id,
        entry,
      ]),
    );
    const guilds = managed.map((guild): MyGuildView => {
      const entry = standing.get(guild.id);
      const status: GuildStatus = !entry?.bot_present
        ? 'bot_missing'
        : entry.registered
          ? 'registered'
          : 'bot_present';
      return {
        platform_guild_id: guild.id,
        name: guild.name,
        icon: guild.icon,
        owner: guild.owner,
        status,
        guild_id: entry?.guild_id ?? null,
        bot_authorize_url: status === 'bot_missing' ? botInviteUrl(this.invite, guild.id) : null,
      };
    });
    const rank = (status: GuildStatus) => GUILD_STATUSES.indexOf(status);
    guilds.sort((a, b) => rank(a.status) - rank(b.status) || a.name.localeCompare(b.name));
    return { guilds };
  }

  /**
   * Whether the user's own guild list (their token, the list reused as `list` reuses it) says they
   * can manage the platform guild: asked before anything spends the bot's platform budget on them.
   * A reused list without the guild is read again once (a guild made, or a role given, since): that
   * costs the user's own token's budget, never the bot's.
   */
  async manages(session: Session, sessionToken: string, platformGuildId: string): Promise<boolean> {
    const managed = (guilds: PlatformUserGuild[]) =>
      guilds.some((guild) => guild.id === platformGuildId && canManage(guild));
    if (managed(await this.guildsOf(session, sessionToken))) return true;
    this.lists.invalidate(session.session_id);
    return managed(await this.guildsOf(session, sessionToken));
  }

  private guildsOf(session: Session, sessionToken: string): Promise<PlatformUserGuild[]> {
    const accessToken = this.sessions.platformAccessToken(session, sessionToken);
    if (!accessToken) throw platformAccessRefused();
    return this.lists.get(session.session_id, () => this.oauth.guildsOf(accessToken));
  }
}
