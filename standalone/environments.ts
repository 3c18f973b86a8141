import { type ProviderWebhookVerification, SERVICE_NAMES, type ServiceName } from '@lib/contracts';
import type { InternalService, StandaloneModes } from './modes';
import { type StandaloneSecrets, sha256Hex } from './secrets';

/** The sandbox OAuth application's id (a snowflake, as the platform's are). */
export const SANDBOX_CLIENT_ID = '100000000000000042';
export const SANDBOX_BOT_TOKEN = 'sandbox-bot-token';

/** The OAuth application the gateway logs in with: the user's, or the sandbox's. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** What the environments are made from; every field is known before any service starts. */
export interface EnvironmentInputs {
  /** The user's environment: a variable set there is passed on as it is. */
  env: NodeJS.ProcessEnv;
  modes: StandaloneModes;
  secrets: StandaloneSecrets;
  /** The public port's URL, e.g. `http://127.0.0.1:3000`. */
  publicUrl: string;
  /** Each internal service's loopback port. */
  ports: Record<InternalService, number>;
  oauth: OAuthApp;
  /** The fake chat platform (the sandbox's or a caller's), or none: the real one. */
  platformFake?: { url: string; cdnUrl: string; botToken: string };
  /** The fake payment provider and where its card page is served, or none: the real one. */
  providerFake?: { url: string; secretKey: string; clientKey: string; sdkUrl: string };
  /** What the provider's webhooks are signed with. */
  webhookSecret: string;
  /** How webhook intake believes deliveries: Toss's by look-up, or the spec's signed envelope. */
  webhookVerification: ProviderWebhookVerification;
  /** Each service's own database login (provisioned at start). */
  databaseLogins: Record<ServiceName, string>;
}

/** The OAuth application: the user's DISCORD_CLIENT_* and OAUTH_REDIRECT_URI, or the sandbox's. */
export function oauthApp(env: NodeJS.ProcessEnv, secrets: StandaloneSecrets, publicUrl: string): OAuthApp {
  return {
    clientId: env.DISCORD_CLIENT_ID || SANDBOX_CLIENT_ID,
    clientSecret: env.DISCORD_CLIENT_SECRET || secrets.oauthClientSecret,
    redirectUri: env.OAUTH_REDIRECT_URI || `${publicUrl}/auth/callback`,
  };
}

/** The loopback URL of each internal service. */
export function internalUrls(ports: Record<InternalService, number>): Record<InternalService, string> {
  return {
    licensing: `http://127.0.0.1:${ports.licensing}`,
    recovery: `http://127.0.0.1:${ports.recovery}`,
    billing: `http://127.0.0.1:${ports.billing}`,
    notifier: `http://127.0.0.1:${ports.notifier}`,
  };
}

/** Only the entries with a value: an unset variable takes the service's own default. */
function defined(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
}

/**
 * Each service's environment in standalone mode (docs/decisions/standalone-mode.md): the same
 * variables it reads when deployed alone, pointing at its siblings' loopback ports, the embedded
 * parts or the real ones the user configured, its own signing key and its own database login.
 */
export function serviceEnvironments(inputs: EnvironmentInputs): Record<ServiceName, NodeJS.ProcessEnv> {
  const { env, modes, secrets, publicUrl, oauth, platformFake, providerFake } = inputs;
  const urls = internalUrls(inputs.ports);
  const platformApi = platformFake ? `${platformFake.url}/api` : env.DISCORD_API_URL;

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
  // The provider's SDK: billing hands it out and the gateway's CSP allows its origin, so both get it.
  const providerSdkUrl = providerFake ? providerFake.sdkUrl : env.PROVIDER_SDK_URL;
  const platform = defined({
    DISCORD_API_URL: platformApi,
    DISCORD_BOT_TOKEN: platformFake ? platformFake.botToken : env.DISCORD_BOT_TOKEN,
  });

  const environments: Record<ServiceName, NodeJS.ProcessEnv> = {
    licensing: { ...common, ...events, PORT: String(inputs.ports.licensing), RECOVERY_URL: urls.recovery },
    recovery: {
      ...common,
      ...events,
      ...platform,
      ...defined({
        PORT: String(inputs.ports.recovery),
        RECOVERY_ROLE: 'all',
        WORKFLOW_ENGINE: modes.workflows,
        TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS,
        TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE,
        TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE,
        DISCORD_PUBLIC_KEY: env.DISCORD_PUBLIC_KEY || secrets.interactionsPublicKey,
        LICENSING_URL: urls.licensing,
        DISCORD_CDN_URL: platformFake ? platformFake.cdnUrl : env.DISCORD_CDN_URL,
        // One process, so exactly one gateway connection: live sync and AntiNuke run here.
        LIVE_SYNC_ENABLED: env.LIVE_SYNC_ENABLED ?? 'true',
      }),
    },
    billing: {
      ...common,
      ...events,
      ...defined({
        PORT: String(inputs.ports.billing),
        PROVIDER_API_URL: providerFake ? providerFake.url : env.PROVIDER_API_URL,
        PROVIDER_SECRET_KEY: providerFake ? providerFake.secretKey : env.PROVIDER_SECRET_KEY,
        PROVIDER_CLIENT_KEY: providerFake ? providerFake.clientKey : env.PROVIDER_CLIENT_KEY,
        PROVIDER_SDK_URL: providerSdkUrl,
        BILLING_KEY_ENCRYPTION_KEY: env.BILLING_KEY_ENCRYPTION_KEY || secrets.billingKeyEncryptionKey,
        RECOVERY_URL: urls.recovery,
        LICENSING_URL: urls.licensing,
        // One machine, a handful of guilds: the jobs (renewals, look-ups of unanswered charges)
        // look for due work every 10 s rather than every minute, so a slow charge settles soon.
        BILLING_JOBS_INTERVAL_MS: env.BILLING_JOBS_INTERVAL_MS || '10000',
      }),
    },
    notifier: {
      ...common,
      ...events,
      ...platform,
      PORT: String(inputs.ports.notifier),
      RECOVERY_URL: urls.recovery,
      LICENSING_URL: urls.licensing,
    },
    'webhook-intake': {
      ...common,
      ...defined({
        PORT: '0',
        REDIS_URL: env.REDIS_URL,
        PROVIDER_WEBHOOK_VERIFICATION: inputs.webhookVerification,
        WEBHOOK_SECRET: inputs.webhookSecret,
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
  for (const service of SERVICE_NAMES) {
    environments[service].INTERNAL_SIGNING_KEY = secrets.internalKeys.signingKeys[service];
    environments[service].DATABASE_URL = inputs.databaseLogins[service];
  }
  return environments;
}
