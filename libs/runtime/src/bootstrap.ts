import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import type { CustomTransportStrategy, MicroserviceOptions } from '@nestjs/microservices';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ConfigError } from '@lib/config';
import {
  CommonErrors,
  PROBLEM_CONTENT_TYPE,
  ProblemDetailsFilter,
  type ProblemKind,
  problemType,
} from '@lib/problem-details';
import { RuntimeErrors } from './runtime.errors';
import { Logger } from 'nestjs-pino';
import { isParsedJson } from './deferred-body';
import { httpMetrics } from './http-metrics';
import { explainUnparsableJson, guardJsonBody } from './json-guard';
import { assignRequestId } from './logging.module';
import { type PlainRoute, servePlainRoutes } from './plain-routes';
import { captureRawBody, type RawBodyRoute } from './raw-body';
import { runWithRequestId } from './request-context';
import { createValidationPipe } from './validation.pipe';

export const JSON_BODY_LIMIT = '1mb';

/**
 * How long a server keeps an idle kept-alive connection open: well past the few seconds its callers
 * (the gateway, the services' internal clients) leave one idle under load, so the server seldom
 * closes a connection a caller is about to reuse; that race resets the request (nodejs/node#43456),
 * which the load run showed as 503s. Node's default is 5 s.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** What Node answers itself, before any route runs, for a request it cannot even read. */
const CLIENT_ERRORS: Record<string, [problem: ProblemKind, detail: string]> = {
  HPE_HEADER_OVERFLOW: [RuntimeErrors.headersTooLarge, 'The request line and headers are over 16 KiB.'],
  ERR_HTTP_REQUEST_TIMEOUT: [RuntimeErrors.requestTimeout, 'The request was not received in time.'],
};

/**
 * The HTTP server every service listens with: idle connections kept as above, a body invited
 * (`100 Continue`) only once a handler reads it, and requests Node refuses before Express sees them
 * (headers over 16 KiB, malformed HTTP) answered with a problem body like every other error,
 * instead of Node's bare status line.
 */
export function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Must exceed keepAliveTimeout, or a slow first request line on a reused connection is cut.
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  // `Expect: 100-continue`: Node would answer "100 Continue" at once, inviting the body before any
  // check ran. The invitation goes out only when a handler starts reading the body; a request
  // refused first (no session, too large, over the rate) is answered without it, and the client
  // never sends the body.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    req.once('resume', () => {
      if (!res.headersSent) res.writeContinue();
    });
    server.emit('request', req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [{ status, code, title }, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [
      CommonErrors.badRequest,
      'The request is not valid HTTP.',
    ];
    const body = JSON.stringify({ type: problemType(code), title, status, detail, code, request_id: null });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** Everything an app does to its Nest application before it listens, shared so tests build the same. */
export function configureApp(
  app: NestExpressApplication,
  rawBodyRoutes: RawBodyRoute[] = [],
  configure?: (app: NestExpressApplication) => void,
): void {
  app.useLogger(app.get(Logger));
  // Before anything that can refuse the request: every answer carries its id, a body the parser
  // refused included (the logger's middleware, which would assign it, runs only after these).
  app.use(assignRequestId);
  // The app's own middleware (CORS, security headers, ...) runs before any body is parsed.
  configure?.(app);
  app.useGlobalFilters(new ProblemDetailsFilter());
  app.useGlobalPipes(createValidationPipe());
  for (const route of rawBodyRoutes) app.use(route.path, captureRawBody(route.limitBytes));
  // Not strict: `null` or `42` parse, so the guard can say the body must be an object, rather than
  // the parser calling them "not valid JSON".
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT, type: isParsedJson, strict: false });
  app.use(explainUnparsableJson);
  app.use(guardJsonBody);
  app.disable('x-powered-by');
  // Carry the request id through everything the request awaits (outbox rows, outgoing calls).
  app.use((req: { id?: string | number }, _res: unknown, next: () => void) =>
    req.id === undefined ? next() : runWithRequestId(String(req.id), next),
  );
}

export async function createApp(
  module: Type | DynamicModule,
  rawBodyRoutes: RawBodyRoute[] = [],
  configure?: (app: NestExpressApplication) => void,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bufferLogs: true,
    // Parsers are registered in configureApp so the body limit is ours.
    bodyParser: false,
    rawBody: true,
  });
  configureApp(app, rawBodyRoutes, configure);
  return app;
}

/**
 * One service as both ways of running it need it: alone (`runService`, its own process and port)
 * and in standalone mode, where every service is assembled in one process with its own environment.
 */
export interface ServiceDefinition<TConfig> {
  name: string;
  /** Validates the service's environment; throws ConfigError listing every problem. */
  loadConfig: (env: NodeJS.ProcessEnv) => TConfig;
  module: (config: TConfig) => Type | DynamicModule;
  port: (config: TConfig) => number;
  /** Routes whose handlers read the raw bytes themselves (signed webhooks, the gateway's forwarding). */
  rawBodyRoutes?: RawBodyRoute[];
  /** Middleware of the app's own, registered before the body parsers (CORS, security headers). */
  configure?: (app: NestExpressApplication, config: TConfig) => void;
  /** Hot routes served ahead of Express and Nest (see `PlainRoute`). */
  plainRoutes?: (app: NestExpressApplication, config: TConfig) => PlainRoute[];
}

/**
 * The provider of a Nest microservice transport (a `CustomTransportStrategy`) for the app's
 * message handlers, `@EventPattern` methods of its controllers. libs/messaging provides one for a
 * service that consumes events: Kafka's, or the in-process bus's in standalone mode. The app is
 * then a hybrid application: HTTP, and the transport calling its handlers (createServiceApp).
 */
export const MESSAGE_TRANSPORT = Symbol('MESSAGE_TRANSPORT');

/** Connects every MESSAGE_TRANSPORT a module of the app provides; `startServiceApp` starts them. */
function connectMessageTransports(app: INestApplication): void {
  for (const module of app.get(ModulesContainer).values()) {
    const transport = module.providers.get(MESSAGE_TRANSPORT)?.instance as
      CustomTransportStrategy | undefined;
    // Not inheriting the app's config: its global filters, pipes and guards are HTTP's.
    if (transport) app.connectMicroservice<MicroserviceOptions>({ strategy: transport });
  }
}

/** The service's Nest application for a validated config, its message transports connected, not started. */
export async function createServiceApp<TConfig>(
  definition: ServiceDefinition<TConfig>,
  config: TConfig,
): Promise<NestExpressApplication> {
  const app = await createApp(definition.module(config), definition.rawBodyRoutes, (created) => {
    created.use(httpMetrics(definition.name));
    definition.configure?.(created, config);
  });
  servePlainRoutes(app.getHttpServer(), definition.name, definition.plainRoutes?.(app, config) ?? []);
  connectMessageTransports(app);
  return app;
}

/**
 * Starts a service's application, before it listens (if it does): its lifecycle hooks (migrations,
 * topics, relays), then its message transports, so no handler runs before the app is initialised.
 * `close()` stops the transports with the rest of the app.
 */
export async function startServiceApp(app: INestApplication): Promise<void> {
  await app.init();
  await app.startAllMicroservices();
}

/**
 * Boots one service: validates its environment first (every problem listed, exit 1), then starts
 * the Nest app and listens. SIGTERM closes the HTTP server, stops consumers and relays, then the
 * database pool (Nest shutdown hooks).
 */
export async function runService<TConfig>(
  options: ServiceDefinition<TConfig>,
): Promise<INestApplication | undefined> {
  let config: TConfig;
  try {
    config = options.loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(
        `${JSON.stringify({ level: 'fatal', service: options.name, msg: 'invalid environment', problems: error.problems })}\n`,
      );
      process.exitCode = 1;
      return undefined;
    }
    throw error;
  }
  const app = await createServiceApp(options, config);
  // Our own handler instead of enableShutdownHooks(), which re-raises the signal after closing and
  // so makes a clean stop look like a crash (exit by signal instead of code 0).
  let closing: Promise<void> | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    closing ??= app
      .close()
      .then(() => {
        process.exitCode = 0;
      })
      .catch((error: unknown) => {
        process.stderr.write(
          `${JSON.stringify({ level: 'error', service: options.name, msg: `shutdown after ${signal} failed`, err: String(error) })}\n`,
        );
        process.exitCode = 1;
      })
      .finally(() => process.exit());
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await startServiceApp(app);
  await app.listen(options.port(config), process.env.HOST ?? '0.0.0.0');
  keepIdleConnections(app.getHttpServer());
  return app;
}

/** Types a service definition's config from its `loadConfig`. */
export function defineService<TConfig>(definition: ServiceDefinition<TConfig>): ServiceDefinition<TConfig> {
  return definition;
}
