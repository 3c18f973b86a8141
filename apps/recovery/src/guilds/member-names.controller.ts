import { ApiOperation } from '@nestjs/swagger';
import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import type { GuildAccess } from '@lib/contracts';
import { ManagedGuild, RequireManageGuild } from '@lib/guild-access';
import { UserDirectory } from '../users/user-directory.repository';
import { GuildMemberNames } from './guild-member-names';
import { type MemberNameView, MemberNamesQuery } from './member-names.dto';

/**
 * The names of the users a guild's pages mention, as that guild knows them (MANAGE_GUILD, checked
 * before the query is): the dashboard's audit log, AntiNuke incidents and subscription payer read
 * "alice" instead of an id. Our user ids go through the user directory; one never seen there gets
 * no item. A user who is not a member of this guild gets no name, so the answer shows no more than
 * the guild's own member list (docs/security.md).
 */
@Controller('api/v1/guilds/:guildId')
export class MemberNamesController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly names: GuildMemberNames,
  ) {}

  @ApiOperation({ summary: 'Name guild members' })
  @Get('member-names')
  @RequireManageGuild({ params: 'guildId' })
  async list(
    @Param('guildId', new ParseUUIDPipe()) _guildId: string,
    @ManagedGuild() guild: GuildAccess,
    @Query() query: MemberNamesQuery,
  ): Promise<{ items: MemberNameView[] }> {
    const userIds = [...new Set(query.user_id?.map((id) => id.toLowerCase()) ?? [])];
    const platformUserIds = [...new Set(query.platform_user_id ?? [])];
    const mapped = await this.directory.platformUserIdsOf(userIds);
    const asked: { user_id: string | null; platform_user_id: string }[] = [
      ...userIds.flatMap((userId) => {
        const platformUserId = mapped.get(userId);
        return platformUserId ? [{ user_id: userId, platform_user_id: platformUserId }] : [];
      }),
      ...platformUserIds.map((platformUserId) => ({ user_id: null, platform_user_id: platformUserId })),
    ];
    const unique = [...new Set(asked.map((item) => item.platform_user_id))];
    const found = await this.names.of(guild.platform_guild_id, unique);
    const nameOf = new Map(found.map((member) => [member.platform_user_id, member.name]));
    return { items: asked.map((item) => ({ ...item, name: nameOf.get(item.platform_user_id) ?? null })) };
  }
}
