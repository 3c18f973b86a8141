import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { ServiceName } from '@lib/contracts';
import { IdentityModule, type InternalKeySet } from '@lib/identity';
import { ProblemDetailsFilter } from '@lib/problem-details';
import type { App } from 'supertest/types';

/**
 * A Nest app for a unit spec, guarded as `service` runs: its internal-token guard (with `keys`)
 * ahead of the spec's modules and controllers, problem-details answers, no logs. Close it after.
 */
export async function guardedApp(
  service: ServiceName,
  keys: InternalKeySet,
  metadata: ModuleMetadata,
): Promise<INestApplication> {
  const identity = IdentityModule.forService(service, {
    INTERNAL_SIGNING_KEY: keys.signingKeys[service],
    INTERNAL_PUBLIC_KEYS: keys.publicKeys,
  });
  const moduleRef = await Test.createTestingModule({
    ...metadata,
    imports: [identity, ...(metadata.imports ?? [])],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalFilters(new ProblemDetailsFilter());
  await app.init();
  return app;
}

/**
 * For the describe block that calls it: a guardedApp up before its tests and closed after them.
 * Returns its HTTP server, for supertest, once it is up.
 */
export function guardedServerForSuite(
  service: ServiceName,
  keys: InternalKeySet,
  metadata: ModuleMetadata,
): () => App {
  let app: INestApplication | undefined;
  beforeAll(async () => {
    app = await guardedApp(service, keys, metadata);
  });
  afterAll(() => app?.close());
  return () => app!.getHttpServer() as App;
}
