import type { IncomingMessage } from 'node:http';

/**
 * Reading a request the way both fakes (chat platform and payment provider) do, each answering in
 * its own error format.
 */

/** The whole body; once it passes `maxBytes`, throws what `tooLarge` makes (the fake's own 413). */
export async function readBodyUpTo(
  req: IncomingMessage,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Percent-decodes each segment of a request path (clients send `@me` as `%40me`); a segment that
 * would decode to a `/` or is malformed stays as sent.
 */
export function decodePath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => {
      try {
        const decoded = decodeURIComponent(segment);
        return decoded.includes('/') ? segment : decoded;
      } catch {
        return segment;
      }
    })
    .join('/');
}
