import { SERVICE_NAMES, type ServiceName } from '@lib/contracts';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';

/** Each service's `INTERNAL_SIGNING_KEY` and the `INTERNAL_PUBLIC_KEYS` every service shares. */
export interface InternalKeySet {
  signingKeys: Record<ServiceName, string>;
  publicKeys: string;
}

/** A fresh Ed25519 key pair for every service (`npm run keys`, standalone mode's first start). */
export function generateInternalKeys(): InternalKeySet {
  return internalKeysOf(() => generateKeyPairSync('ed25519').privateKey);
}

/** The key set for each service's private key as `privateKeyOf` gives it. */
export function internalKeysOf(privateKeyOf: (service: ServiceName) => KeyObject): InternalKeySet {
  const signingKeys = {} as Record<ServiceName, string>;
  const publicKeys: object[] = [];
  for (const service of SERVICE_NAMES) {
    const jwk = privateKeyOf(service).export({ format: 'jwk' });
    signingKeys[service] = JSON.stringify({ kty: jwk.kty, crv: jwk.crv, kid: service, x: jwk.x, d: jwk.d });
    publicKeys.push({ kty: jwk.kty, crv: jwk.crv, kid: service, x: jwk.x });
  }
  return { signingKeys, publicKeys: JSON.stringify({ keys: publicKeys }) };
}
