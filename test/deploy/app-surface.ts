import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { HealthModule } from '@lib/runtime';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { BillingEnv } from '../../apps/billing/src/billing.env';
import { ROUTES as DASHBOARD_ROUTES } from '../../apps/dashboard/src/app/routes';
import { AuthController } from '../../apps/gateway/src/auth/auth.controller';
import { MeController } from '../../apps/gateway/src/auth/me.controller';
import { DASHBOARD_ASSETS } from '../../apps/gateway/src/dashboard/dashboard-files';
import { DocsController } from '../../apps/gateway/src/docs/docs.controller';
import { ForwardingController } from '../../apps/gateway/src/forwarding/forwarding.controller';
import { GatewayEnv } from '../../apps/gateway/src/gateway.env';
import { LicensingEnv } from '../../apps/licensing/src/licensing.env';
import { NotifierEnv } from '../../apps/notifier/src/notifier.env';
import { InteractionsController } from '../../apps/recovery/src/interactions/interactions.controller';
import { RecoveryEnv } from '../../apps/recovery/src/recovery.env';
import { WebhookIntakeEnv } from '../../apps/webhook-intake/src/webhook-intake.env';
import { WEBHOOK_PATH } from '../../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { ROOT } from './manifest-files';

/** What the code says each app reads and serves, for comparison with the manifests. */

type EnvClass = new () => object;

/** The config class each app validates at boot (its main.ts passes it to loadConfig). */
export const APP_ENVS: Record<string, EnvClass> = {
  gateway: GatewayEnv,
  recovery: RecoveryEnv,
  billing: BillingEnv,
  licensing: LicensingEnv,
  notifier: NotifierEnv,
  'webhook-intake': WebhookIntakeEnv,
};

/** The applications of the Nest monorepo (nest-cli.json). */
export function nestApplications(): string[] {
  const cli = JSON.parse(readFileSync(path.join(ROOT, 'nest-cli.json'), 'utf8')) as {
    projects: Record<string, { type: string }>;
  };
  return Object.entries(cli.projects)
    .filter(([, project]) => project.type === 'application')
    .map(([name]) => name);
}

/** Every variable the app's config class declares (including inherited ones). */
export function declaredVariables(env: EnvClass): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(env, '', true, false)
      .map((metadata) => metadata.propertyName),
  );
}

/** Validates `values` as loadConfig does; the names of the variables with a problem. */
export function invalidVariables(env: EnvClass, values: Record<string, string>): Set<string> {
  const config = plainToInstance(env, { ...values }, { enableImplicitConversion: true });
  const errors = validateSync(config, { skipMissingProperties: false, forbidUnknownValues: true });
  return new Set(errors.map((error) => error.property));
}

/** Variables without a default: the app refuses to start when they are missing. */
export function requiredVariables(env: EnvClass): Set<string> {
  return invalidVariables(env, {});
}

// --- routes ------------------------------------------------------------------------------------

type Controller = new (...args: never[]) => object;

function pathsOf(target: object): string[] {
  const paths = Reflect.getMetadata(PATH_METADATA, target) as string | string[] | undefined;
  return paths === undefined ? [] : ([] as string[]).concat(paths);
}

function joinPath(...parts: string[]): string {
  const joined = parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}

/** `GET /health/live`-style routes (Nest metadata), keyed by handler name. */
export function controllerRoutes(controller: Controller): Map<string, { method: string; path: string }[]> {
  const routes = new Map<string, { method: string; path: string }[]>();
  const prototype = controller.prototype as Record<string, unknown>;
  for (const handler of Object.getOwnPropertyNames(prototype)) {
    const fn = prototype[handler];
    if (handler === 'constructor' || typeof fn !== 'function') continue;
    const methodPaths = pathsOf(fn);
    if (!methodPaths.length) continue;
    const method = Reflect.getMetadata(METHOD_METADATA, fn) as number;
    routes.set(
      handler,
      pathsOf(controller).flatMap((base) =>
        methodPaths.map((sub) => ({ method: String(method), path: joinPath(base, sub) })),
      ),
    );
  }
  return routes;
}

function allPaths(controllers: Controller[]): string[] {
  return controllers.flatMap((controller) =>
    [...controllerRoutes(controller).values()].flat().map((route) => route.path),
  );
}

/** The health endpoints of libs/runtime that every app mounts. */
export function healthPaths(): { live: string; ready: string } {
  const [controller] = (HealthModule.forRoot().controllers ?? []) as Controller[];
  const routes = controllerRoutes(controller);
  const only = (handler: string) => {
    const found = routes.get(handler);
    if (found?.length !== 1) throw new Error(`health controller has no single route for ${handler}()`);
    return found[0].path;
  };
  return { live: only('live'), ready: only('ready') };
}

/**
 * Routes reachable from outside the cluster, per app: the gateway's own controllers and its
 * forwarding table's prefixes, webhook-intake's provider webhook (a plain route, not a controller),
 * recovery's interactions endpoint.
 */
export const PUBLIC_ROUTES: Record<string, string[]> = {
  gateway: [
    ...allPaths([AuthController, MeController, DocsController, ForwardingController]),
    ...dashboardPaths(),
  ],
  'webhook-intake': [WEBHOOK_PATH],
  recovery: allPaths([InteractionsController]),
};

/**
 * The dashboard the gateway serves (apps/gateway/src/dashboard): every page of its route table,
 * its hashed assets, and the files of its public folder at the top of the origin.
 */
export function dashboardPaths(): string[] {
  const files = readdirSync(path.join(ROOT, 'apps/dashboard/public')).map((file) => `/${file}`);
  return [...Object.values(DASHBOARD_ROUTES), `${DASHBOARD_ASSETS}/*path`, ...files];
}

/** Whether `route` (with `:param` / `*path` segments) lies under the ingress path. */
export function routeUnder(route: string, ingressPath: string, pathType: string): boolean {
  if (pathType === 'Exact') return route === ingressPath;
  return route === ingressPath || route.startsWith(`${ingressPath.replace(/\/$/, '')}/`);
}
