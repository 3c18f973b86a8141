import { createPublicKey, type KeyObject, verify } from 'node:crypto';

/** The platform signs `timestamp + raw body`; a request older than this is treated as a replay. */
export const INTERACTION_MAX_AGE_SECONDS = 5 * 60;

/**
 * Ed25519 verification of the platform's interaction requests (headers `X-Signature-Ed25519`,
 * hex, and `X-Signature-Timestamp`, unix seconds). The application's public key is configured as
 * 64 hex characters, as the platform's developer portal shows it.
 */
export class InteractionVerifier {
  private readonly key: KeyObject;

  constructor(
    publicKeyHex: string,
    private readonly now: () => number = Date.now,
  ) {
    if (!/^[0-9a-f]{64}$/i.test(publicKeyHex))
      throw new Error('the interaction public key must be 64 hex characters');
    this.key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') },
      format: 'jwk',
    });
  }

  verify(
    signatureHex: string | undefined,
    timestamp: string | undefined,
    rawBody: Buffer | undefined,
  ): boolean {
    if (!signatureHex || !timestamp || !rawBody) return false;
    if (!/^[0-9a-f]{128}$/i.test(signatureHex) || !/^\d{1,12}$/.test(timestamp)) return false;
    const ageSeconds = Math.abs(this.now() / 1000 - Number(timestamp));
    if (ageSeconds > INTERACTION_MAX_AGE_SECONDS) return false;
    return verify(
      null,
      Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]),
      this.key,
      Buffer.from(signatureHex, 'hex'),
    );
  }
}
