import { SERVICE_NAMES, type ServiceName } from '@lib/contracts';
import { type EnvironmentInputs, oauthApp, SANDBOX_CLIENT_ID, serviceEnvironments } from './environments';
import { detectModes } from './modes';
import { createSecrets, sha256Hex } from './secrets';
import { configureServices, StandaloneConfigError } from './services';

const secrets = createSecrets();
const PUBLIC_URL = 'http://127.0.0.1:3000';
const ports = { licensing: 4001, recovery: 4002, billing: 4003, notifier: 4004 };
const databaseLogins = Object.fromEntries(
  SERVICE_NAMES.map((service) => [service, `postgres://guildkeeper_${service}:pw@127.0.0.1:5432/gk`]),
) as Record<ServiceName, string>;

/** The sandbox case: nothing configured, the sandbox's fakes on their own ports. */
function sandboxInputs(env: NodeJS.ProcessEnv = {}): EnvironmentInputs {
  return {
    env,
    modes: detectModes(env, { callerFakes: false }),
    secrets,
    publicUrl: PUBLIC_URL,
    ports,
    oauth: oauthApp(env, secrets, PUBLIC_URL),
    platformFake: {
      url: 'http://127.0.0.1:5001',
      cdnUrl: 'http://127.0.0.1:5001/cdn',
      botToken: 'sandbox-bot-token',
    },
    providerFake: {
      url: 'http://127.0.0.1:5002',
      secretKey: 'test_sk',
      clientKey: 'test_ck',
      sdkUrl: `${PUBLIC_URL}/sandbox/v2/standard`,
    },
    webhookSecret: secrets.webhookSecret,
    webhookVerification: 'lookup',
    databaseLogins,
  };
}

describe(serviceEnvironments.name, () => {
  it('gives every service an environment its own configuration accepts', () => {
    expect(() => configureServices(serviceEnvironments(sandboxInputs()))).not.toThrow();
  });

  it('points each service at its siblings on loopback and the fakes, with its own key and login', () => {
    const environments = serviceEnvironments(sandboxInputs());
    expect(environments.licensing).toMatchObject({ PORT: '4001', RECOVERY_URL: 'http://127.0.0.1:4002' });
    expect(environments.recovery).toMatchObject({
      PORT: '4002',
      EVENT_TRANSPORT: 'in-process',
      WORKFLOW_ENGINE: 'in-process',
      DISCORD_API_URL: 'http://127.0.0.1:5001/api',
      DISCORD_BOT_TOKEN: 'sandbox-bot-token',
      LICENSING_URL: 'http://127.0.0.1:4001',
      LIVE_SYNC_ENABLED: 'true',
    });
    expect(environments.billing).toMatchObject({
      PROVIDER_API_URL: 'http://127.0.0.1:5002',
      PROVIDER_SECRET_KEY: 'test_sk',
      PROVIDER_SDK_URL: `${PUBLIC_URL}/sandbox/v2/standard`,
      BILLING_KEY_ENCRYPTION_KEY: secrets.billingKeyEncryptionKey,
    });
    expect(environments['webhook-intake']).toMatchObject({
      PORT: '0',
      PROVIDER_WEBHOOK_VERIFICATION: 'lookup',
      WEBHOOK_SECRET: secrets.webhookSecret,
      BILLING_URL: 'http://127.0.0.1:4003',
      ADMIN_TOKEN_SHA256: sha256Hex(secrets.adminToken),
    });
    expect(environments.gateway).toMatchObject({
      PORT: '0',
      DISCORD_OAUTH_URL: 'http://127.0.0.1:5001',
      DISCORD_CLIENT_ID: SANDBOX_CLIENT_ID,
      OAUTH_REDIRECT_URI: `${PUBLIC_URL}/auth/callback`,
      DASHBOARD_URL: `${PUBLIC_URL}/`,
      NOTIFIER_URL: 'http://127.0.0.1:4004',
    });
    for (const service of SERVICE_NAMES) {
      expect(environments[service].INTERNAL_SIGNING_KEY).toBe(secrets.internalKeys.signingKeys[service]);
      expect(environments[service].DATABASE_URL).toBe(databaseLogins[service]);
      expect(environments[service].MIGRATE_ON_START).toBe('true');
    }
    expect(environments.gateway.REDIS_URL).toBeUndefined();
  });

  it("passes the user's real parts and settings on as they are", () => {
    const env = {
      KAFKA_BROKERS: 'kafka:9092',
      TEMPORAL_ADDRESS: 'temporal:7233',
      REDIS_URL: 'redis://redis:6379',
      DISCORD_BOT_TOKEN: 'real-token',
      DISCORD_API_URL: 'https://discord.example/api',
      PROVIDER_SECRET_KEY: 'live_sk',
      PROVIDER_API_URL: 'https://provider.example',
      LOG_LEVEL: 'debug',
      LIVE_SYNC_ENABLED: 'false',
      DASHBOARD_URL: 'https://dash.example/',
    };
    const environments = serviceEnvironments({
      ...sandboxInputs(env),
      platformFake: undefined,
      providerFake: undefined,
    });
    expect(environments.recovery).toMatchObject({
      EVENT_TRANSPORT: 'kafka',
      KAFKA_BROKERS: 'kafka:9092',
      WORKFLOW_ENGINE: 'temporal',
      TEMPORAL_ADDRESS: 'temporal:7233',
      DISCORD_BOT_TOKEN: 'real-token',
      DISCORD_API_URL: 'https://discord.example/api',
      LOG_LEVEL: 'debug',
      LIVE_SYNC_ENABLED: 'false',
    });
    expect(environments.billing).toMatchObject({
      PROVIDER_SECRET_KEY: 'live_sk',
      PROVIDER_API_URL: 'https://provider.example',
    });
    expect(environments.gateway).toMatchObject({
      REDIS_URL: 'redis://redis:6379',
      DASHBOARD_URL: 'https://dash.example/',
    });
    expect(environments['webhook-intake'].REDIS_URL).toBe('redis://redis:6379');
    // Unset variables are left out: the service's own default applies.
    expect('TEMPORAL_NAMESPACE' in environments.recovery).toBe(false);
    expect('KAFKA_TLS' in environments.notifier).toBe(false);
  });

  it('lists every refused variable of every service at once', () => {
    const environments = serviceEnvironments(sandboxInputs({ LOG_LEVEL: 'loud' }));
    environments.billing.PROVIDER_API_URL = 'not a url';
    let refused: unknown;
    try {
      configureServices(environments);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(StandaloneConfigError);
    const problems = (refused as StandaloneConfigError).problems;
    for (const service of SERVICE_NAMES) {
      expect(
        problems.some((problem) => problem.startsWith(`${service}: `) && problem.includes('LOG_LEVEL')),
      ).toBe(true);
    }
    expect(
      problems.some((problem) => problem.startsWith('billing: ') && problem.includes('PROVIDER_API_URL')),
    ).toBe(true);
  });
});

describe(oauthApp.name, () => {
  it("is the sandbox's application unless the user configures one", () => {
    expect(oauthApp({}, secrets, PUBLIC_URL)).toEqual({
      clientId: SANDBOX_CLIENT_ID,
      clientSecret: secrets.oauthClientSecret,
      redirectUri: `${PUBLIC_URL}/auth/callback`,
    });
    expect(
      oauthApp(
        {
          DISCORD_CLIENT_ID: '42',
          DISCORD_CLIENT_SECRET: 's',
          OAUTH_REDIRECT_URI: 'https://x/auth/callback',
        },
        secrets,
        PUBLIC_URL,
      ),
    ).toEqual({ clientId: '42', clientSecret: 's', redirectUri: 'https://x/auth/callback' });
  });
});
