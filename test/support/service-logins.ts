import type { ServiceName } from '@lib/contracts';

/**
 * Each service's own Postgres login in the test stack, as the deployment has them: the migration
 * run of the global setup creates the roles (`npm run migrate` with `<SERVICE>_DATABASE_URL`) and
 * `startApp` gives each app its own. Derived from DATABASE_URL (the administrator): same server and
 * database, the role `guildkeeper_<service>`. Type imports only: Jest's global setup loads this.
 */
export function serviceDatabaseVariable(service: ServiceName): string {
  return `${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;
}

export function defaultServiceDatabaseUrl(adminUrl: string, service: ServiceName): string {
  const url = new URL(adminUrl);
  url.username = `guildkeeper_${service.replace(/-/g, '_')}`;
  // The test server trusts loopback; a password still goes with the login, as in a deployment.
  url.password = `test-${service}-password`;
  return url.toString();
}

/** The login `service` connects with in tests. */
export function serviceDatabaseUrl(service: ServiceName): string {
  const url = process.env[serviceDatabaseVariable(service)];
  if (!url) throw new Error(`${serviceDatabaseVariable(service)} is not set (test-env sets it)`);
  return url;
}
