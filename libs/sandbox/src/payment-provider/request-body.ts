import type { IncomingMessage } from 'node:http';
import { readBodyUpTo } from '../request-reading';
import { providerError } from './provider-error';

const MAX_BODY_BYTES = 64 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return readBodyUpTo(req, MAX_BODY_BYTES, () => providerError.bodyTooLarge());
}

export type JsonObject = Record<string, unknown>;

export function parseJsonObject(raw: Buffer): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw providerError.invalidRequest('The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw providerError.invalidRequest('The request body must be a JSON object.');
  }
  return parsed as JsonObject;
}

export function requireString(body: JsonObject, field: string): string {
  const value = body[field];
  if (typeof value !== 'string') throw providerError.invalidRequest(`${field} must be a string.`);
  return value;
}
