import { ValidationError } from '@lib/problem-details';

/** A position in a list ordered by (timestamp DESC, id DESC): the last row of the previous page. */
export interface KeysetPosition {
  at: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The opaque `next_cursor` the API hands out: base64url of `<ISO time>|<uuid>`. */
export function encodeKeysetCursor(at: Date | string, id: string): string {
  return Buffer.from(`${new Date(at).toISOString()}|${id}`).toString('base64url');
}

/** Reads a cursor back; anything that is not one of ours is a 400 on the `cursor` field. */
export function decodeKeysetCursor(cursor: string): KeysetPosition {
  const [at = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const time = new Date(at);
  if (rest.length > 0 || Number.isNaN(time.getTime()) || !UUID.test(id)) {
    throw new ValidationError('cursor is not valid', [{ field: 'cursor', message: 'cursor is not valid' }]);
  }
  return { at: time, id };
}
