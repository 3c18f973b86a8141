import { randomBytes, randomInt } from 'node:crypto';

/** `prefix` + 24 random base64url characters (144 bits): unique for all practical purposes. */
export function randomId(prefix: string): string {
  return `${prefix}${randomBytes(18).toString('base64url')}`;
}

/** The card company's approval number: 8 digits. */
export function approvalNumber(): string {
  return randomInt(0, 100_000_000).toString().padStart(8, '0');
}
