import { Module } from '@nestjs/common';
import { GuildAccessService } from './guild-access.service';
import { GuildRegistry } from './guild-registry.service';
import { GuildAccessController, GuildsController } from './guilds.controller';

@Module({
  controllers: [GuildsController, GuildAccessController],
  providers: [GuildRegistry, GuildAccessService],
  exports: [GuildRegistry, GuildAccessService],
})
export class GuildsModule {}
