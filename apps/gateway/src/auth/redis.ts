import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';

/** The gateway's one Redis connection (sessions, OAuth states, rate-limit counters). */
export const GATEWAY_REDIS = Symbol('GATEWAY_REDIS');

/** Global, so the readiness check can ping the same connection the routes use. */
@Module({})
export class GatewayRedisModule implements OnApplicationShutdown {
  constructor(@Inject(GATEWAY_REDIS) private readonly redis: Redis) {}

  static forRoot(url: string): DynamicModule {
    return {
      module: GatewayRedisModule,
      global: true,
      providers: [
        {
          provide: GATEWAY_REDIS,
          // A request must fail fast when Redis is down, not queue behind reconnects.
          useFactory: () => new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false }),
        },
      ],
      exports: [GATEWAY_REDIS],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
