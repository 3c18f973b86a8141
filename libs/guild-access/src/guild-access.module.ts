import { type DynamicModule, Module } from '@nestjs/common';
import { InternalTokenCodec } from '@lib/identity';
import { GuildAccessClient, type GuildAccessClientOptions } from './guild-access.client';
import { GuildAccessSource } from './guild-scope';

/**
 * Provides GuildAccessClient to a service whose routes are guild-scoped, and makes it the
 * GuildAccessSource their `@RequireManageGuild` guards ask.
 */
@Module({})
export class GuildAccessModule {
  static forService(options: Omit<GuildAccessClientOptions, 'codec'>): DynamicModule {
    return {
      module: GuildAccessModule,
      global: true,
      providers: [
        {
          provide: GuildAccessClient,
          inject: [InternalTokenCodec],
          useFactory: (codec: InternalTokenCodec) => new GuildAccessClient({ ...options, codec }),
        },
        { provide: GuildAccessSource, useExisting: GuildAccessClient },
      ],
      exports: [GuildAccessClient, GuildAccessSource],
    };
  }
}
