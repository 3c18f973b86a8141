import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The secrets standalone mode makes for itself on the first start and keeps in the data folder
 * (mode 0600): the same ones every start, so sessions, the encrypted billing keys and the
 * provider's webhook signatures stay valid across restarts. A value set in the environment wins.
 */
export interface StandaloneSecrets {
  internalJwtSecret: string;
  billingKeyEncryptionKey: string;
  webhookSecret: string;
  /** The operator token of the webhook tools; the services keep only its SHA-256. */
  adminToken: string;
  oauthClientSecret: string;
  /** The sandbox application's Ed25519 public key (interactions), 64 hex. */
  interactionsPublicKey: string;
}

const FILE = 'secrets.json';

export function loadOrCreateSecrets(dataDir: string): StandaloneSecrets {
  const file = path.join(dataDir, FILE);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as StandaloneSecrets;
  const { publicKey } = generateKeyPairSync('ed25519');
  // The raw key is the last 32 bytes of its SPKI encoding.
  const rawPublicKey = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const secrets: StandaloneSecrets = {
    internalJwtSecret: randomBytes(32).toString('base64url'),
    billingKeyEncryptionKey: randomBytes(32).toString('hex'),
    webhookSecret: randomBytes(24).toString('base64url'),
    adminToken: randomBytes(24).toString('base64url'),
    oauthClientSecret: randomBytes(24).toString('base64url'),
    interactionsPublicKey: rawPublicKey.toString('hex'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
