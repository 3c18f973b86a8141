import { type DynamicModule, Module } from '@nestjs/common';
import { GuildsModule } from '../guilds/guilds.module';
import { SnapshotsModule } from '../snapshots/snapshots.module';
import { UsersModule } from '../users/users.module';
import { InteractionVerifier } from './interaction-signature';
import { InteractionsController } from './interactions.controller';
import { InteractionsService } from './interactions.service';

@Module({})
export class InteractionsModule {
  static forRoot(options: { publicKeyHex: string }): DynamicModule {
    return {
      module: InteractionsModule,
      imports: [GuildsModule, SnapshotsModule, UsersModule],
      controllers: [InteractionsController],
      providers: [
        InteractionsService,
        { provide: InteractionVerifier, useValue: new InteractionVerifier(options.publicKeyHex) },
      ],
    };
  }
}
