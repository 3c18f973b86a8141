/**
 * The image bytes behind custom emojis and stickers: what an upload holds, told from its bytes (the
 * platform does not trust a declared type), and whether it moves. The fake keeps the bytes exactly
 * as uploaded and serves them back from its CDN (it converts nothing).
 */

/** An uploaded image or Lottie file, as the platform keeps it. */
export interface ExpressionImage {
  bytes: Buffer;
  /** What the bytes are (not what the upload declared): `image/png`, `image/gif`, `application/json`... */
  contentType: string;
}

export type ImageKind = 'png' | 'jpeg' | 'gif' | 'webp' | 'avif';

export const CONTENT_TYPES: Record<ImageKind | 'lottie', string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  lottie: 'application/json',
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image format the bytes are, by their signature; undefined for anything else. */
export function imageKind(bytes: Buffer): ImageKind | undefined {
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const head = bytes.subarray(0, 6).toString('latin1');
  if (head === 'GIF87a' || head === 'GIF89a') return 'gif';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'webp';
  }
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp' && ['avif', 'avis'].includes(avifBrand(bytes))) {
    return 'avif';
  }
  return undefined;
}

function avifBrand(bytes: Buffer): string {
  return bytes.subarray(8, 12).toString('latin1');
}

/**
 * Whether the image moves: a GIF of more than one frame, a WebP with its animation flag, an AVIF
 * image sequence (`avis`), a PNG with an animation control chunk (APNG).
 */
export function isAnimated(bytes: Buffer, kind: ImageKind): boolean {
  switch (kind) {
    case 'gif':
      return gifFrameCount(bytes) > 1;
    case 'webp':
      // An extended WebP (VP8X) carries its flags in the byte after the chunk header; 0x02 is animation.
      return bytes.subarray(12, 16).toString('latin1') === 'VP8X' && ((bytes[20] ?? 0) & 0x02) !== 0;
    case 'avif':
      return avifBrand(bytes) === 'avis';
    case 'png':
      return hasPngChunk(bytes, 'acTL');
    case 'jpeg':
      return false;
  }
}

/** The image descriptors of a GIF, walked block by block (its data may hold any byte). */
function gifFrameCount(bytes: Buffer): number {
  let at = 13;
  const screenFlags = bytes[10] ?? 0;
  if (screenFlags & 0x80) at += 3 * 2 ** ((screenFlags & 0x07) + 1);
  let frames = 0;
  while (at < bytes.length) {
    const block = bytes[at];
    if (block === 0x3b) break;
    if (block === 0x21) {
      at = skipSubBlocks(bytes, at + 2);
    } else if (block === 0x2c) {
      frames++;
      const flags = bytes[at + 9] ?? 0;
      at += 10;
      if (flags & 0x80) at += 3 * 2 ** ((flags & 0x07) + 1);
      at = skipSubBlocks(bytes, at + 1);
    } else {
      break;
    }
  }
  return frames;
}

function skipSubBlocks(bytes: Buffer, from: number): number {
  let at = from;
  while (at < bytes.length && bytes[at] !== 0) at += bytes[at] + 1;
  return at + 1;
}

/** Whether a PNG has the chunk before its image data. */
function hasPngChunk(bytes: Buffer, type: string): boolean {
  let at = 8;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const chunk = bytes.subarray(at + 4, at + 8).toString('latin1');
    if (chunk === type) return true;
    if (chunk === 'IDAT' || chunk === 'IEND') return false;
    at += 12 + length;
  }
  return false;
}

/**
 * Image data (reference, "Image Data"): a data URI, `data:image/png;base64,...`. The platform
 * takes JPEG, PNG, GIF, WebP and AVIF emoji (resources/emoji, "Emoji Formats"). The docs do not
 * say whether the declared type must match the bytes: the fake reads it strictly and refuses a URI
 * whose bytes are not the image type it names. Undefined when the text is not such an image.
 */
export function parseImageData(text: string): { image: ExpressionImage; kind: ImageKind } | undefined {
  const match = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i.exec(text);
  if (!match) return undefined;
  const bytes = Buffer.from(match[2], 'base64');
  const kind = imageKind(bytes);
  const declared = match[1].toLowerCase() === 'image/jpg' ? 'image/jpeg' : match[1].toLowerCase();
  if (!kind || CONTENT_TYPES[kind] !== declared) return undefined;
  return { image: { bytes, contentType: CONTENT_TYPES[kind] }, kind };
}

/** A 1x1 transparent PNG: the image of an emoji or sticker a test adds without one. */
export const PLACEHOLDER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A 1x1 GIF of two frames: the image of an animated emoji a test adds without one. */
export const PLACEHOLDER_ANIMATED_GIF = Buffer.concat([
  Buffer.from('GIF89a', 'latin1'),
  // 1x1 screen, a global colour table of two entries, then the table (black, white).
  Buffer.from([1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]),
  ...[0, 1].map(() =>
    Buffer.from([
      // A graphic control extension (delay 10), then an image descriptor and its one-pixel data.
      0x21, 0xf9, 4, 0, 10, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0,
    ]),
  ),
  Buffer.from([0x3b]),
]);
