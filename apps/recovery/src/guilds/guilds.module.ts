import { Module } from '@nestjs/common';
import { GuildAccessSource } from '@lib/guild-access';
import { GuildAccessService } from './guild-access.service';
import { GuildLookupController } from './guild-lookup.controller';
import { GuildLookupRepository } from './guild-lookup.repository';
import { GuildRegistry } from './guild-registry.service';
import { GuildAccessController, GuildsController } from './guilds.controller';

@Module({
  controllers: [GuildsController, GuildAccessController, GuildLookupController],
  // The registry answers MANAGE_GUILD itself for recovery's own `@RequireManageGuild` routes.
  providers: [
    GuildRegistry,
    GuildAccessService,
    GuildLookupRepository,
    { provide: GuildAccessSource, useExisting: GuildAccessService },
  ],
  exports: [GuildRegistry, GuildAccessService, GuildAccessSource],
})
export class GuildsModule {}
