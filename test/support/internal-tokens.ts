import type { InternalIdentity, ServiceName } from '@lib/contracts';
import { InternalTokenCodec } from '@lib/identity';
import { TEST_INTERNAL_KEYS } from './internal-keys';

/** A codec holding `service`'s test key: the gateway's signs users' identities, as the real one does. */
export function testTokenCodec(service: ServiceName): InternalTokenCodec {
  return InternalTokenCodec.fromKeySet(service, TEST_INTERNAL_KEYS);
}

/**
 * The token the caller of `identity` would send to `audience`: the gateway's for a user, the
 * service's own for a service.
 */
export function signInternalToken(identity: InternalIdentity, audience: ServiceName): Promise<string> {
  const issuer = identity.kind === 'user' ? 'gateway' : identity.service;
  return testTokenCodec(issuer).sign(identity, audience);
}
