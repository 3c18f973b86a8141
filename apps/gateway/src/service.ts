import { loadConfig } from '@lib/config';
import { REQUEST_ID_HEADER } from '@lib/contracts';
import { defineService } from '@lib/runtime';
import helmet from 'helmet';
import { AppModule } from './app.module';
import { GatewayEnv } from './gateway.env';

/** Bodies the gateway forwards as received; the services apply their own (equal) 1 MiB limit. */
const FORWARDED_BODY_LIMIT = 1024 * 1024;

/** How the gateway service is assembled: alone (main.ts) or in standalone mode. */
export const gatewayService = defineService({
  name: 'gateway',
  loadConfig: (env) => loadConfig(GatewayEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
  rawBodyRoutes: [
    { path: '/api/v1', limitBytes: FORWARDED_BODY_LIMIT },
    { path: '/subscriptions', limitBytes: FORWARDED_BODY_LIMIT },
  ],
  configure: (app, config) => {
    // Behind the ingress the client's address is in X-Forwarded-For; believe only that many hops.
    app.set('trust proxy', config.TRUST_PROXY_HOPS);
    app.use(
      helmet({
        // The API answers JSON; the one HTML page is the OpenAPI viewer, served from this origin.
        contentSecurityPolicy: {
          directives: {
            defaultSrc: ["'self'"],
            imgSrc: ["'self'", 'data:'],
            styleSrc: ["'self'", "'unsafe-inline'"],
            frameAncestors: ["'none'"],
          },
        },
      }),
    );
    app.enableCors({
      // A list, not a string: only a matching Origin is echoed back; others get no CORS headers.
      origin: [new URL(config.DASHBOARD_URL).origin],
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['content-type', 'authorization', REQUEST_ID_HEADER],
      exposedHeaders: [REQUEST_ID_HEADER, 'retry-after'],
      maxAge: 600,
    });
  },
});
