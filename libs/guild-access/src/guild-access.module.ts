import { type DynamicModule, Module } from '@nestjs/common';
import { InternalTokenCodec } from '@lib/identity';
import { GuildAccessClient, type GuildAccessClientOptions } from './guild-access.client';

/** Provides GuildAccessClient to a service whose routes are guild-scoped. */
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
      ],
      exports: [GuildAccessClient],
    };
  }
}
