import type { ServiceName } from '@lib/contracts';
import { TEST_INTERNAL_KEYS } from './internal-keys';
import { defaultServiceDatabaseUrl, serviceDatabaseVariable } from './service-logins';

/**
 * What keeps one Jest worker's test files apart from another's on the shared infrastructure (a
 * worker runs one file at a time). Worker 1 has the database a run in band always had. Redis has 16
 * databases, so at most 16 workers. Type-free of Jest: the global setup loads this too.
 */
export const MAX_TEST_WORKERS = 16;

export function testWorkerEnv(worker: number): Record<string, string> {
  if (!Number.isInteger(worker) || worker < 1 || worker > MAX_TEST_WORKERS) {
    throw new Error(`test worker ${worker}: at most ${MAX_TEST_WORKERS} workers share the local Redis`);
  }
  const suffix = worker === 1 ? '' : `_${worker}`;
  return {
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/guildkeeper_test${suffix}`,
    REDIS_URL: `redis://127.0.0.1:6379/${worker - 1}`,
    KAFKA_NAMESPACE: `test-w${worker}.`,
    TEMPORAL_NAMESPACE: `test-w${worker}`,
  };
}

/** Each service's own login on `databaseUrl` (`<SERVICE>_DATABASE_URL`), as the migration run makes them. */
export function serviceLoginsOn(databaseUrl: string): Record<string, string> {
  return Object.fromEntries(
    (Object.keys(TEST_INTERNAL_KEYS.signingKeys) as ServiceName[]).map((service) => [
      serviceDatabaseVariable(service),
      defaultServiceDatabaseUrl(databaseUrl, service),
    ]),
  );
}
