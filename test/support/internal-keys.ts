import type { ServiceName } from '@lib/contracts';
import type { InternalKeySet } from '@lib/identity';
import { createHash, createPrivateKey } from 'node:crypto';

/** Every service once; a record, so that a service added to ServiceName must be added here. */
const SERVICES: Record<ServiceName, true> = {
  gateway: true,
  recovery: true,
  billing: true,
  licensing: true,
  notifier: true,
  'webhook-intake': true,
};

/**
 * The services' internal-token keys in tests: derived from fixed seeds, so the test process and
 * every app process it starts (each given its own signing key by `startApp`) agree without passing
 * keys around. Test-only: real deployments make theirs with `npm run keys`. Built with node:crypto
 * alone (type imports only), because Jest's global setup loads this without the `@lib` mapping.
 */
export const TEST_INTERNAL_KEYS: InternalKeySet = (() => {
  const signingKeys = {} as Record<ServiceName, string>;
  const publicKeys: object[] = [];
  for (const service of Object.keys(SERVICES) as ServiceName[]) {
    const seed = createHash('sha256').update(`guildkeeper test internal key: ${service}`).digest();
    // RFC 8410: the PKCS #8 encoding of an Ed25519 private key is this prefix and the 32-byte seed.
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const { x, d } = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
    signingKeys[service] = JSON.stringify({ kty: 'OKP', crv: 'Ed25519', kid: service, x, d });
    publicKeys.push({ kty: 'OKP', crv: 'Ed25519', kid: service, x });
  }
  return { signingKeys, publicKeys: JSON.stringify({ keys: publicKeys }) };
})();
