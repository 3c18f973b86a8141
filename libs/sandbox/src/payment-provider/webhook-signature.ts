import { createHmac } from 'node:crypto';

export interface SignatureOptions {
  /** Default hex. */
  encoding?: 'hex' | 'base64';
  /** Prepend `sha256=`; default false. */
  prefix?: boolean;
}

/** HMAC-SHA256 over the raw body bytes (a string is taken as UTF-8), keyed with the webhook secret. */
export function signWebhookBody(
  rawBody: string | Buffer,
  secret: string,
  options: SignatureOptions = {},
): string {
  const digest = createHmac('sha256', secret)
    .update(rawBody)
    .digest(options.encoding ?? 'hex');
  return options.prefix ? `sha256=${digest}` : digest;
}
