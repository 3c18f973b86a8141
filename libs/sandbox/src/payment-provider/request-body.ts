import type { IncomingMessage } from 'node:http';
import { providerError } from './provider-error';

const MAX_BODY_BYTES = 64 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw providerError.bodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
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
