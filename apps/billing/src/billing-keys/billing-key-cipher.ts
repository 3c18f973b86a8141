import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const KEY_BYTES = 32;
const VERSION = 0x01;
const VERSION_BYTES = 1;
// 96-bit nonces are the size GCM is specified for; any other length is hashed into one and weakens it.
const NONCE_BYTES = 12;
const AUTH_TAG_BYTES = 16;
const HEADER_BYTES = VERSION_BYTES + NONCE_BYTES + AUTH_TAG_BYTES;
const DIGEST_KEY_INFO = 'billing-key-digest';

/** The blob cannot be turned back into a billing key; deliberately says nothing about the key itself. */
export class BillingKeyDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BillingKeyDecryptionError';
  }
}

/**
 * Encrypts provider billing keys at rest with AES-256-GCM.
 *
 * A blob is `version (1) | nonce (12) | auth tag (16) | ciphertext`, so a row carries everything
 * needed to decrypt it and a later key or algorithm change can be told apart by its first byte.
 * The version byte is authenticated together with the caller's associated data, so it cannot be
 * swapped to make a blob be read under different rules.
 */
export class BillingKeyCipher {
  private readonly key: Buffer;
  // A separate key for lookups keeps the digest from being usable against the encryption key.
  private readonly digestKey: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) {
      throw new RangeError(`billing key cipher needs a ${KEY_BYTES}-byte key, got ${key.length} bytes`);
    }
    // Copied so a caller reusing or zeroing its buffer cannot change the key under us.
    this.key = Buffer.from(key);
    // No salt: the input is already a uniformly random key, which is all HKDF's extract step needs.
    this.digestKey = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), DIGEST_KEY_INFO, KEY_BYTES));
  }

  /**
   * Reads the key from configuration. The message never echoes the input: it is the secret itself
   * and would end up in logs.
   */
  static parseKey(raw: string): Buffer {
    if (/^[0-9a-fA-F]{64}$/.test(raw)) {
      return Buffer.from(raw, 'hex');
    }
    const key = decodeCanonicalBase64(raw);
    if (key?.length === KEY_BYTES) {
      return key;
    }
    throw new Error(
      `billing key must be ${KEY_BYTES} bytes written as 64 hex characters or as base64/base64url ` +
        `(got ${raw.length} characters that do not decode to ${KEY_BYTES} bytes)`,
    );
  }

  encrypt(plaintext: string, associatedData: string): Buffer {
    // A fresh nonce per call: reusing one under the same key would reveal the XOR of two plaintexts
    // and let anyone forge tags.
    const nonce = randomBytes(NONCE_BYTES);
    const version = Buffer.of(VERSION);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce, { authTagLength: AUTH_TAG_BYTES });
    cipher.setAAD(boundData(version, associatedData));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([version, nonce, cipher.getAuthTag(), ciphertext]);
  }

  decrypt(blob: Buffer, associatedData: string): string {
    if (blob.length < HEADER_BYTES) {
      throw new BillingKeyDecryptionError(
        `billing key blob is ${blob.length} bytes, shorter than its ${HEADER_BYTES}-byte header`,
      );
    }
    const version = blob.subarray(0, VERSION_BYTES);
    if (version[0] !== VERSION) {
      throw new BillingKeyDecryptionError(`billing key blob has unknown version ${version[0]}`);
    }
    const nonce = blob.subarray(VERSION_BYTES, VERSION_BYTES + NONCE_BYTES);
    const authTag = blob.subarray(VERSION_BYTES + NONCE_BYTES, HEADER_BYTES);
    const ciphertext = blob.subarray(HEADER_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, nonce, { authTagLength: AUTH_TAG_BYTES });
      decipher.setAAD(boundData(version, associatedData));
      decipher.setAuthTag(authTag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      // Node cannot tell a wrong key from wrong associated data or a tampered blob, and neither should we.
      throw new BillingKeyDecryptionError(
        'billing key blob failed authentication: wrong key, wrong associated data or altered blob',
      );
    }
  }

  /**
   * Deterministic keyed fingerprint of a billing key, so a row can be found by the key a provider
   * webhook names without storing it in clear or decrypting every row. Keyed, unlike a plain hash,
   * so a leaked table cannot be matched against guessed billing keys.
   */
  digest(plaintext: string): Buffer {
    return createHmac('sha256', this.digestKey).update(plaintext, 'utf8').digest();
  }
}

function boundData(version: Buffer, associatedData: string): Buffer {
  return Buffer.concat([version, Buffer.from(associatedData, 'utf8')]);
}

/**
 * Node's base64 decoder skips characters it does not know and accepts both alphabets mixed, so a
 * typo could silently yield a different key; only input that re-encodes to itself is accepted.
 */
function decodeCanonicalBase64(raw: string): Buffer | null {
  const unpadded = raw.replace(/=+$/, '');
  if (unpadded !== raw && raw.length % 4 !== 0) {
    return null;
  }
  for (const encoding of ['base64', 'base64url'] as const) {
    const decoded = Buffer.from(unpadded, encoding);
    if (decoded.toString(encoding).replace(/=+$/, '') === unpadded) {
      return decoded;
    }
  }
  return null;
}
