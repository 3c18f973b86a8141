import {
  type DynamicModule,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  RequestMethod,
} from '@nestjs/common';
import { InternalTokenCodec } from '@lib/identity';
import { KEY_VALUE_STORE, KeyValueModule, type KeyValueStore } from '@lib/key-value';
import { serviceAppModule } from '@lib/runtime';
import { AUTH_OPTIONS, AuthController, type AuthOptions } from './auth/auth.controller';
import { CookieOriginCheck, TRUSTED_ORIGINS } from './auth/cookie-origin.check';
import { IpRateLimitMiddleware } from './auth/ip-rate-limit.middleware';
import { MeController } from './auth/me.controller';
import { PlatformOAuthClient } from './auth/platform-oauth.client';
import { RateLimiter } from './auth/rate-limiter';
import { RATE_LIMITS, type RateLimits, SessionGuard } from './auth/session.guard';
import { SESSION_OPTIONS, Sessions } from './auth/sessions';
import { UsersRepository } from './auth/users.repository';
import { gatewayDatabase } from './database';
import { DocsModule } from './docs/docs.module';
import { ForwardingController } from './forwarding/forwarding.controller';
import { UpstreamProxy, UPSTREAMS, type UpstreamOptions } from './forwarding/upstream-proxy';
import type { GatewayEnv } from './gateway.env';
import type { BotInviteOptions } from './guilds/bot-invite';
import { GuildRegistryClient } from './guilds/guild-registry.client';
import { BOT_INVITE, MyGuilds } from './guilds/my-guilds.service';
import { RegistrationCheck } from './guilds/registration-check';

@Module({})
export class AppModule implements NestModule {
  static forRoot(config: GatewayEnv): DynamicModule {
    return serviceAppModule(AppModule, 'gateway', config, {
      database: gatewayDatabase,
      readiness: {
        inject: [KEY_VALUE_STORE],
        useFactory: (store: KeyValueStore) => [
          // Named after what it checks: Redis, or the key_values table in standalone mode.
          { name: config.REDIS_URL ? 'redis' : 'key-value', check: () => store.ping() },
        ],
      },
      imports: [
        KeyValueModule.forRoot({
          redisUrl: config.REDIS_URL,
          // A request must fail fast when Redis is down, not queue behind reconnects.
          redisOptions: { maxRetriesPerRequest: 1, enableOfflineQueue: false },
          schema: gatewayDatabase.schema,
        }),
        DocsModule,
      ],
      // Order matters: the gateway's own routes before the catch-all forwarding.
      controllers: [AuthController, MeController, ForwardingController],
      providers: [
        {
          provide: PlatformOAuthClient,
          useValue: new PlatformOAuthClient({
            apiBaseUrl: config.DISCORD_API_URL,
            oauthBaseUrl: config.DISCORD_OAUTH_URL,
            clientId: config.DISCORD_CLIENT_ID,
            clientSecret: config.DISCORD_CLIENT_SECRET,
            redirectUri: config.OAUTH_REDIRECT_URI,
          }),
        },
        {
          provide: AUTH_OPTIONS,
          useValue: {
            dashboardUrl: config.DASHBOARD_URL,
            secureCookies: config.NODE_ENV === 'production',
            sessionTtlSeconds: config.SESSION_TTL_S,
          } satisfies AuthOptions,
        },
        { provide: SESSION_OPTIONS, useValue: { ttlSeconds: config.SESSION_TTL_S } },
        {
          provide: RATE_LIMITS,
          useValue: {
            perSession: config.RATE_LIMIT_SESSION_PER_MINUTE,
            perIp: config.RATE_LIMIT_IP_PER_MINUTE,
          } satisfies RateLimits,
        },
        {
          provide: UPSTREAMS,
          useValue: {
            urls: {
              recovery: config.RECOVERY_URL,
              billing: config.BILLING_URL,
              licensing: config.LICENSING_URL,
              notifier: config.NOTIFIER_URL,
            },
            timeoutMs: config.UPSTREAM_TIMEOUT_MS,
          } satisfies UpstreamOptions,
        },
        {
          provide: BOT_INVITE,
          useValue: {
            oauthBaseUrl: config.DISCORD_OAUTH_URL,
            clientId: config.DISCORD_CLIENT_ID,
          } satisfies BotInviteOptions,
        },
        {
          provide: GuildRegistryClient,
          inject: [InternalTokenCodec],
          useFactory: (codec: InternalTokenCodec) => new GuildRegistryClient(config.RECOVERY_URL, codec),
        },
        MyGuilds,
        RegistrationCheck,
        { provide: TRUSTED_ORIGINS, useValue: [new URL(config.DASHBOARD_URL).origin] },
        CookieOriginCheck,
        Sessions,
        RateLimiter,
        SessionGuard,
        UsersRepository,
        UpstreamProxy,
      ],
    });
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(IpRateLimitMiddleware)
      .forRoutes(
        { path: 'api/*path', method: RequestMethod.ALL },
        { path: 'auth/*path', method: RequestMethod.ALL },
        { path: 'subscriptions/*path', method: RequestMethod.ALL },
      );
  }
}
