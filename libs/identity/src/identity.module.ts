import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { InternalAuthGuard } from './internal-auth.guard';
import { InternalTokenCodec } from './internal-token';

@Module({})
export class IdentityModule {
  /** Registers the codec and makes the internal-token guard global for the app. */
  static forService(options: { secret: string; service: string }): DynamicModule {
    return {
      module: IdentityModule,
      global: true,
      providers: [
        { provide: InternalTokenCodec, useValue: new InternalTokenCodec(options.secret, options.service) },
        { provide: APP_GUARD, useClass: InternalAuthGuard },
      ],
      exports: [InternalTokenCodec],
    };
  }
}
