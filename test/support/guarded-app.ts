import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { ServiceName } from '@lib/contracts';
import { IdentityModule, type InternalKeySet } from '@lib/identity';
import { ProblemDetailsFilter } from '@lib/problem-details';

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
