import { Module } from '@nestjs/common';
import { GuildAccessSource } from '@lib/guild-access';
import { UsersModule } from '../users/users.module';
import { GuildAccessChanges } from './guild-access-changes';
import { GuildAccessService } from './guild-access.service';
import { GuildLookupController } from './guild-lookup.controller';
import { GuildMemberNames } from './guild-member-names';
import { GuildRegistry } from './guild-registry.service';
import { GuildAccessController, GuildsController } from './guilds.controller';
import { GuildsRepository } from './guilds.repository';
import { MemberNamesController } from './member-names.controller';
import { ScopePermissions } from './scope-permissions';

@Module({
  imports: [UsersModule],
  controllers: [GuildsController, GuildAccessController, GuildLookupController, MemberNamesController],
  // The registry answers MANAGE_GUILD itself for recovery's own `@RequireManageGuild` routes.
  providers: [
    GuildRegistry,
    GuildsRepository,
    GuildAccessService,
    GuildAccessChanges,
    ScopePermissions,
    GuildMemberNames,
    { provide: GuildAccessSource, useExisting: GuildAccessService },
  ],
  exports: [
    GuildRegistry,
    GuildsRepository,
    GuildAccessService,
    GuildAccessChanges,
    ScopePermissions,
    GuildAccessSource,
    GuildMemberNames,
  ],
})
export class GuildsModule {}
