import { randomBytes } from 'node:crypto';
import { BillingKeyCipher, BillingKeyDecryptionError } from './billing-key-cipher';

const CUSTOMER = 'customer-7f3a';
const OTHER_CUSTOMER = 'customer-91bc';
const BILLING_KEY = 'bk_live_4f1c2e9a7d';

function thrownBy(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    if (error instanceof Error) {
      return error;
    }
    throw error;
  }
  throw new Error('expected the action to throw');
}

describe(BillingKeyCipher.name, () => {
  const key = randomBytes(32);
  const sut = new BillingKeyCipher(key);

  describe('encrypt and decrypt', () => {
    it('gives back the plaintext for the same associated data', () => {
      expect(sut.decrypt(sut.encrypt(BILLING_KEY, CUSTOMER), CUSTOMER)).toBe(BILLING_KEY);
    });

    it('round-trips an empty and a non-ASCII plaintext', () => {
      expect(sut.decrypt(sut.encrypt('', CUSTOMER), CUSTOMER)).toBe('');
      expect(sut.decrypt(sut.encrypt('키-ключ-🔑', CUSTOMER), CUSTOMER)).toBe('키-ключ-🔑');
    });

    it('writes version 1, a 12-byte nonce and a 16-byte tag ahead of a ciphertext as long as the text', () => {
      const blob = sut.encrypt(BILLING_KEY, CUSTOMER);
      expect(blob[0]).toBe(0x01);
      expect(blob.length).toBe(1 + 12 + 16 + Buffer.byteLength(BILLING_KEY));
    });

    it('uses a fresh nonce each time, so the same text never encrypts the same way twice', () => {
      const first = sut.encrypt(BILLING_KEY, CUSTOMER);
      const second = sut.encrypt(BILLING_KEY, CUSTOMER);
      expect(first.equals(second)).toBe(false);
      expect(first.subarray(1, 13).equals(second.subarray(1, 13))).toBe(false);
    });

    it('does not carry the plaintext bytes in the blob', () => {
      const blob = sut.encrypt(BILLING_KEY, CUSTOMER);
      expect(blob.includes(Buffer.from(BILLING_KEY, 'utf8'))).toBe(false);
    });

    it('can be read by another instance built from the same key', () => {
      const blob = sut.encrypt(BILLING_KEY, CUSTOMER);
      expect(new BillingKeyCipher(Buffer.from(key)).decrypt(blob, CUSTOMER)).toBe(BILLING_KEY);
    });

    it('is not affected by the caller later changing the key buffer it passed in', () => {
      const callerKey = randomBytes(32);
      const cipher = new BillingKeyCipher(callerKey);
      const blob = cipher.encrypt(BILLING_KEY, CUSTOMER);
      const original = Buffer.from(callerKey);
      callerKey.fill(0);
      expect(cipher.decrypt(blob, CUSTOMER)).toBe(BILLING_KEY);
      expect(new BillingKeyCipher(original).decrypt(blob, CUSTOMER)).toBe(BILLING_KEY);
    });
  });

  describe('refusing a blob', () => {
    const blob = sut.encrypt(BILLING_KEY, CUSTOMER);

    function withByte(index: number, value: number): Buffer {
      const copy = Buffer.from(blob);
      copy[index] = value;
      return copy;
    }

    function flipped(index: number): Buffer {
      return withByte(index, blob[index] ^ 0x01);
    }

    it.each([
      ['a different key', () => new BillingKeyCipher(randomBytes(32)).decrypt(blob, CUSTOMER)],
      ["another customer's associated data", () => sut.decrypt(blob, OTHER_CUSTOMER)],
      ['a flipped nonce byte', () => sut.decrypt(flipped(1), CUSTOMER)],
      ['a flipped auth tag byte', () => sut.decrypt(flipped(13), CUSTOMER)],
      ['a flipped ciphertext byte', () => sut.decrypt(flipped(blob.length - 1), CUSTOMER)],
      ['a blob cut inside its ciphertext', () => sut.decrypt(blob.subarray(0, blob.length - 1), CUSTOMER)],
      ['a blob shorter than its header', () => sut.decrypt(blob.subarray(0, 28), CUSTOMER)],
      ['an empty blob', () => sut.decrypt(Buffer.alloc(0), CUSTOMER)],
      ['an unknown version', () => sut.decrypt(withByte(0, 0x02), CUSTOMER)],
      ['version 0', () => sut.decrypt(withByte(0, 0x00), CUSTOMER)],
    ])('throws BillingKeyDecryptionError for %s', (_, decrypt) => {
      expect(decrypt).toThrow(BillingKeyDecryptionError);
    });

    it('names the error and keeps the plaintext and key out of its message', () => {
      const error = thrownBy(() => sut.decrypt(blob, OTHER_CUSTOMER));
      expect(error).toBeInstanceOf(BillingKeyDecryptionError);
      expect(error.name).toBe('BillingKeyDecryptionError');
      expect(error.message).not.toContain(BILLING_KEY);
      expect(error.message).not.toContain(key.toString('hex'));
      expect(error.message).not.toContain(key.toString('base64'));
    });
  });

  describe('digest', () => {
    it('is 32 bytes and the same for the same text', () => {
      const digest = sut.digest(BILLING_KEY);
      expect(digest).toHaveLength(32);
      expect(sut.digest(BILLING_KEY).equals(digest)).toBe(true);
      expect(new BillingKeyCipher(Buffer.from(key)).digest(BILLING_KEY).equals(digest)).toBe(true);
    });

    it('differs for a different text', () => {
      expect(sut.digest(BILLING_KEY).equals(sut.digest(`${BILLING_KEY}x`))).toBe(false);
    });

    it('differs under a different key', () => {
      expect(sut.digest(BILLING_KEY).equals(new BillingKeyCipher(randomBytes(32)).digest(BILLING_KEY))).toBe(
        false,
      );
    });

    it('is not a plain hash of the text, nor the encryption key itself', () => {
      const digest = sut.digest(BILLING_KEY);
      expect(digest.includes(Buffer.from(BILLING_KEY, 'utf8'))).toBe(false);
      expect(digest.equals(key)).toBe(false);
    });
  });

  describe('constructor', () => {
    it.each([0, 16, 31, 33, 64])('refuses a %i-byte key', (length) => {
      expect(() => new BillingKeyCipher(Buffer.alloc(length))).toThrow(RangeError);
    });
  });

  describe(BillingKeyCipher.parseKey.name, () => {
    const bytes = randomBytes(32);

    it.each([
      ['lower-case hex', bytes.toString('hex')],
      ['upper-case hex', bytes.toString('hex').toUpperCase()],
      ['padded base64', bytes.toString('base64')],
      ['unpadded base64', bytes.toString('base64').replace(/=+$/, '')],
      ['base64url', bytes.toString('base64url')],
    ])('accepts 32 bytes as %s', (_, raw) => {
      expect(BillingKeyCipher.parseKey(raw).equals(bytes)).toBe(true);
    });

    it('accepts base64 and base64url that use their alphabet-specific characters', () => {
      const awkward = Buffer.alloc(32, 0xfb);
      expect(awkward.toString('base64')).toMatch(/[+/]/);
      expect(awkward.toString('base64url')).toMatch(/[-_]/);
      expect(BillingKeyCipher.parseKey(awkward.toString('base64')).equals(awkward)).toBe(true);
      expect(BillingKeyCipher.parseKey(awkward.toString('base64url')).equals(awkward)).toBe(true);
    });

    it.each([
      ['empty', ''],
      ['31 bytes of hex', randomBytes(31).toString('hex')],
      ['33 bytes of hex', randomBytes(33).toString('hex')],
      ['31 bytes of base64', randomBytes(31).toString('base64')],
      ['33 bytes of base64', randomBytes(33).toString('base64')],
      ['31 bytes of base64url', randomBytes(31).toString('base64url')],
      ['33 bytes of base64url', randomBytes(33).toString('base64url')],
      ['64 characters that are not hex', 'g'.repeat(64)],
      ['64 hex characters with a space', `${'a'.repeat(63)} `],
      [
        'base64 with a stray character',
        `${bytes.toString('base64').slice(0, 20)}!${bytes.toString('base64').slice(20)}`,
      ],
      ['base64 mixing both alphabets', `+_${bytes.toString('base64').slice(2)}`],
      ['base64 with too much padding', `${bytes.toString('base64')}=`],
    ])('refuses %s', (_, raw) => {
      expect(() => BillingKeyCipher.parseKey(raw)).toThrow(/64 hex characters or as base64\/base64url/);
    });

    it.each([
      ['64 characters that are not hex', 'z'.repeat(64)],
      ['31 bytes of hex', randomBytes(31).toString('hex')],
      ['33 bytes of base64', randomBytes(33).toString('base64')],
      ['a passphrase', 'correct horse battery staple'],
    ])('keeps %s out of its error message', (_, raw) => {
      const { message } = thrownBy(() => BillingKeyCipher.parseKey(raw));
      expect(message).not.toContain(raw);
      expect(message).not.toContain(raw.toLowerCase());
    });
  });
});
