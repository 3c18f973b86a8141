import { SERVICE_NAMES, type ServiceName } from '@lib/contracts';
import { generateInternalKeys, type InternalKeySet } from '@lib/identity';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The secrets standalone mode makes for itself on the first start and keeps in the data folder
 * (mode 0600): the same ones every start, so sessions, the encrypted billing keys and the
 * provider's webhook signatures stay valid across restarts. A value set in the environment wins.
 */
export interface StandaloneSecrets {
  /** Each service's internal-token signing key and everyone's public keys. */
  internalKeys: InternalKeySet;
  billingKeyEncryptionKey: string;
  webhookSecret: string;
  /** The operator token of the webhook tools; the services keep only its SHA-256. */
  adminToken: string;
  oauthClientSecret: string;
  /** The sandbox application's Ed25519 public key (interactions), 64 hex. */
  interactionsPublicKey: string;
  /** Each service's own database login's password (the roles are made at every start). */
  databasePasswords: Record<ServiceName, string>;
}

const FILE = 'secrets.json';

export function loadOrCreateSecrets(dataDir: string): StandaloneSecrets {
  const file = path.join(dataDir, FILE);
  const saved = existsSync(file) ? readFileSync(file, 'utf8') : '{}';
  // The shared token secret of earlier versions is dropped; what they lacked is made now, the rest kept.
  const { internalJwtSecret: _retired, ...kept } = JSON.parse(saved) as Partial<StandaloneSecrets> & {
    internalJwtSecret?: string;
  };
  const secrets: StandaloneSecrets = { ...createSecrets(), ...kept };
  const text = JSON.stringify(secrets, null, 2);
  if (text !== saved) writeFileSync(file, text, { mode: 0o600 });
  return secrets;
}

/** A new set of secrets, as the first start makes them. */
export function createSecrets(): StandaloneSecrets {
  const { publicKey } = generateKeyPairSync('ed25519');
  // The raw key is the last 32 bytes of its SPKI encoding.
  const rawPublicKey = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    internalKeys: generateInternalKeys(),
    billingKeyEncryptionKey: randomBytes(32).toString('hex'),
    webhookSecret: randomBytes(24).toString('base64url'),
    adminToken: randomBytes(24).toString('base64url'),
    oauthClientSecret: randomBytes(24).toString('base64url'),
    interactionsPublicKey: rawPublicKey.toString('hex'),
    databasePasswords: Object.fromEntries(
      SERVICE_NAMES.map((service) => [service, randomBytes(24).toString('base64url')]),
    ) as Record<ServiceName, string>,
  };
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
