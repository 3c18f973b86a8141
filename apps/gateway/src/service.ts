import { loadConfig } from '@lib/config';
import { REQUEST_ID_HEADER } from '@lib/contracts';
import { defineService } from '@lib/runtime';
import helmet from 'helmet';
import { Logger } from '@nestjs/common';
import { AppModule } from './app.module';
import { serveDashboard } from './dashboard/dashboard-files';
import { deferForwardedBody } from './forwarding/forwarded-body';
import { GatewayEnv } from './gateway.env';

/** How the gateway service is assembled: alone (main.ts) or in standalone mode. */
export const gatewayService = defineService({
  name: 'gateway',
  loadConfig: (env) => loadConfig(GatewayEnv, env),
  module: (config) => AppModule.forRoot(config),
  port: (config) => config.PORT,
  configure: (app, config) => {
    // Behind the ingress the client's address is in X-Forwarded-For; believe only that many hops.
    app.set('trust proxy', config.TRUST_PROXY_HOPS);
    app.use(
      helmet({
        // The API answers JSON; the HTML pages (the dashboard, the OpenAPI viewer) and every style
        // they load come from this origin, with no inline script; scripts from this origin and the
        // payment provider's SDK origin only (the checkout loads it, docs/billing-in-the-dashboard.md).
        contentSecurityPolicy: {
          directives: {
            defaultSrc: ["'self'"],
            scriptSrc: scriptSources(config.PROVIDER_SDK_URL),
            imgSrc: ["'self'", 'data:'],
            styleSrc: ["'self'", "'unsafe-inline'"],
            frameAncestors: ["'none'"],
          },
        },
      }),
    );
    if (!serveDashboard(app, config.DASHBOARD_DIST_DIR)) {
      new Logger('Dashboard').log(`no dashboard build in ${config.DASHBOARD_DIST_DIR}: serving the API only`);
    }
    // Forwarded bodies are read after the session check (ForwardingController), not by a parser.
    app.use(['/api/v1', '/subscriptions'], deferForwardedBody);
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

/** Where the dashboard's scripts may come from: this origin and the provider's SDK's origin. */
export function scriptSources(providerSdkUrl: string): string[] {
  return ["'self'", new URL(providerSdkUrl).origin];
}
