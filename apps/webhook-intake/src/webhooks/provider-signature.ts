import { createHmac, timingSafeEqual } from 'node:crypto';

const HEX = /^[0-9a-f]{64}$/i;
const BASE64 = /^[A-Za-z0-9+/_-]{43}=?$/;

/**
 * docs/behaviour.md §5.4 / docs/decisions/webhook-signature.md: `Provider-Signature` is HMAC-SHA256
 * of the raw body bytes with the webhook secret, as hex or base64 (optionally `sha256=`-prefixed). Compared in constant time over
 * the decoded 32 bytes, so neither the encoding nor the position of a wrong byte shows in timing.
 */
export function verifyProviderSignature(
  rawBody: Buffer,
  header: string | undefined,
  secret: string,
): boolean {
  const received = decodeSignature(header);
  if (!received) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(received, expected);
}

function decodeSignature(header: string | undefined): Buffer | null {
  if (!header) return null;
  const value = header.trim().replace(/^sha256=/i, '');
  if (HEX.test(value)) return Buffer.from(value, 'hex');
  if (BASE64.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}
