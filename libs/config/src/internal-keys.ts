import { registerDecorator, type ValidationOptions } from 'class-validator';

/** An Ed25519 key as a JSON Web Key (RFC 8037): `x` is the public half, `d` the private one. */
export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  kid: string;
  x: string;
  d?: string;
}

/** 32 bytes in unpadded base64url. */
const KEY_BYTES = /^[A-Za-z0-9_-]{43}$/;

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function isEd25519Jwk(value: unknown): value is Ed25519Jwk {
  if (typeof value !== 'object' || value === null) return false;
  const key = value as Record<string, unknown>;
  return (
    key.kty === 'OKP' &&
    key.crv === 'Ed25519' &&
    typeof key.kid === 'string' &&
    key.kid.length > 0 &&
    typeof key.x === 'string' &&
    KEY_BYTES.test(key.x)
  );
}

/** The private signing key of `INTERNAL_SIGNING_KEY`, or undefined when it is not one. */
export function parseSigningKey(value: unknown): (Ed25519Jwk & { d: string }) | undefined {
  const key = parseJson(value);
  if (!isEd25519Jwk(key) || typeof key.d !== 'string' || !KEY_BYTES.test(key.d)) return undefined;
  return key as Ed25519Jwk & { d: string };
}

/**
 * The public keys of `INTERNAL_PUBLIC_KEYS`, or undefined when the value is not a key set of public
 * Ed25519 keys with distinct ids. A private half in it is refused: the set is handed to every
 * service, so a private key there would let each of them sign as its owner.
 */
export function parsePublicKeys(value: unknown): Ed25519Jwk[] | undefined {
  const set = parseJson(value);
  if (typeof set !== 'object' || set === null) return undefined;
  const keys = (set as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return undefined;
  if (!keys.every((key) => isEd25519Jwk(key) && !('d' in key))) return undefined;
  const ids = keys.map((key: Ed25519Jwk) => key.kid);
  return new Set(ids).size === ids.length ? (keys as Ed25519Jwk[]) : undefined;
}

export function IsSigningKey(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isSigningKey',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be this service's Ed25519 private key as a JWK with kid, x and d (npm run keys)`,
        ...options,
      },
      validator: { validate: (value: unknown) => parseSigningKey(value) !== undefined },
    });
}

export function IsPublicKeySet(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPublicKeySet',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be a JWK set ({"keys":[...]}) of public Ed25519 keys with distinct kids and no private parts (npm run keys)`,
        ...options,
      },
      validator: { validate: (value: unknown) => parsePublicKeys(value) !== undefined },
    });
}
