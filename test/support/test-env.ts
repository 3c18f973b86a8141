import { Logger } from '@nestjs/common';
import { TEST_APPLICATION_PUBLIC_KEY } from './interactions';
import { TEST_INTERNAL_KEYS } from './internal-keys';
import { serviceLoginsOn, testWorkerEnv } from './test-workers';

/**
 * Defaults for integration tests: the infrastructure `npm test` brings up on loopback and a
 * database of their own. Any of them can be overridden from the environment.
 *
 * Jest runs test files in several workers at once (`npm test` runs two). Each worker has its own
 * database, Redis database, Kafka namespace and Temporal namespace (testWorkerEnv), so files in
 * different workers share no consumer group, shard lease (advisory locks are per database), due
 * row, cached key or workflow id. A run in band is worker 1.
 */
const worker = Number(process.env.JEST_WORKER_ID ?? '1');
// The global setup loads this file in Jest's parent process, whose environment the workers inherit:
// what it defaulted there (for worker 1) is defaulted again here, for this worker; what the user
// set is kept.
const defaulted = new Set((process.env.TEST_ENV_DEFAULTED ?? '').split(',').filter(Boolean));
function workerDefault(name: string, value: string): void {
  if (process.env[name] !== undefined && !defaulted.has(name)) return;
  process.env[name] = value;
  defaulted.add(name);
}
for (const [name, value] of Object.entries(testWorkerEnv(worker))) workerDefault(name, value);
// Each app connects with its own login (startApp), made by the global setup's migration run.
for (const [name, value] of Object.entries(serviceLoginsOn(process.env.DATABASE_URL!)))
  workerDefault(name, value);
process.env.TEST_ENV_DEFAULTED = [...defaulted].join(',');
process.env.KAFKA_BROKERS ??= '127.0.0.1:9092';
process.env.TEMPORAL_ADDRESS ??= '127.0.0.1:7233';
// Each app's own INTERNAL_SIGNING_KEY is given by startApp; the public keys are everyone's.
process.env.INTERNAL_PUBLIC_KEYS ??= TEST_INTERNAL_KEYS.publicKeys;
process.env.LOG_LEVEL ??= 'warn';
// Sibling services at their usual ports; a test that needs one running passes its real URL.
process.env.RECOVERY_URL ??= 'http://127.0.0.1:3001';
process.env.LICENSING_URL ??= 'http://127.0.0.1:3003';
process.env.DISCORD_BOT_TOKEN ??= 'fake-bot-token';
process.env.DISCORD_PUBLIC_KEY ??= TEST_APPLICATION_PUBLIC_KEY;
// Billing: the fake provider's keys; a test that charges starts the fake and passes its URL.
process.env.PROVIDER_API_URL ??= 'http://127.0.0.1:9';
process.env.PROVIDER_SECRET_KEY ??= 'test_sk_fake';
process.env.PROVIDER_CLIENT_KEY ??= 'test_ck_fake';
process.env.BILLING_KEY_ENCRYPTION_KEY ??= '6a1f0c3e9b27d4856e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f';
// Webhook intake: the fake provider's default webhook secret, billing at its usual port, and the
// digest of the operator token 'test-admin-token-0123456789'.
process.env.WEBHOOK_SECRET ??= 'test-webhook-secret';
// The suites written against the spec's signed envelope run the intake in `signature` mode; a test of
// Toss's unsigned deliveries starts it with PROVIDER_WEBHOOK_VERIFICATION=lookup.
process.env.PROVIDER_WEBHOOK_VERIFICATION ??= 'signature';
process.env.BILLING_URL ??= 'http://127.0.0.1:3002';
// Every test request comes from loopback: the intake's per-address limit is off unless a test sets it.
process.env.WEBHOOK_RATE_LIMIT_PER_MINUTE ??= '0';
// Gateway: the OAuth application registered on the fake platform, the notifier at its usual port.
process.env.DISCORD_CLIENT_ID ??= '100000000000000001';
process.env.DISCORD_CLIENT_SECRET ??= 'test-oauth-client-secret';
process.env.OAUTH_REDIRECT_URI ??= 'http://127.0.0.1:3000/auth/callback';
process.env.NOTIFIER_URL ??= 'http://127.0.0.1:3004';
process.env.ADMIN_TOKEN_SHA256 ??= 'bbb6a34ebe561f77928db4a633cac23fbb9e6a6f9eae0d03729bca2dbb237985';

// Library code running inside the test process logs through Nest's Logger; keep only errors, as
// the apps under test do with LOG_LEVEL=warn.
Logger.overrideLogger(['error']);
