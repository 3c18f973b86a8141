import { Module } from '@nestjs/common';
import { GuildAccessSource } from '@lib/guild-access';
import { GuildAccessService } from './guild-access.service';
import { GuildLookupController } from './guild-lookup.controller';
import { GuildRegistry } from './guild-registry.service';
import { GuildAccessController, GuildsController } from './guilds.controller';
import { GuildsRepository } from './guilds.repository';

@Module({
  controllers: [GuildsController, GuildAccessController, GuildLookupController],
  // The registry answers MANAGE_GUILD itself for recovery's own `@RequireManageGuild` routes.
  providers: [
    GuildRegistry,
    GuildsRepository,
    GuildAccessService,
    { provide: GuildAccessSource, useExisting: GuildAccessService },
  ],
  exports: [GuildRegistry, GuildsRepository, GuildAccessService, GuildAccessSource],
})
export class GuildsModule {}
