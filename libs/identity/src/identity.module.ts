import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { InternalAuthGuard } from './internal-auth.guard';
import { type InternalKeyOptions, InternalTokenCodec } from './internal-token';

@Module({})
export class IdentityModule {
  /** Registers the codec and makes the internal-token guard global for the app. */
  static forService(
    service: InternalKeyOptions['service'],
    config: { INTERNAL_SIGNING_KEY: string; INTERNAL_PUBLIC_KEYS: string },
  ): DynamicModule {
    const options: InternalKeyOptions = {
      service,
      signingKey: config.INTERNAL_SIGNING_KEY,
      publicKeys: config.INTERNAL_PUBLIC_KEYS,
    };
    return {
      module: IdentityModule,
      global: true,
      providers: [
        { provide: InternalTokenCodec, useValue: new InternalTokenCodec(options) },
        { provide: APP_GUARD, useClass: InternalAuthGuard },
      ],
      exports: [InternalTokenCodec],
    };
  }
}
