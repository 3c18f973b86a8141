import { ValidationError } from '@lib/problem-details';

/**
 * A position in a list ordered by (timestamp DESC, id DESC): the last row of the previous page.
 * `at` is the row's timestamp exactly as Postgres holds it (microseconds), as text: a JS Date keeps
 * milliseconds only, and a cursor rounded to them would skip rows within the same millisecond.
 */
export interface KeysetPosition {
  at: string;
  id: string;
}

/** Selects a timestamptz column as the full-precision UTC text a cursor carries. */
export function keysetTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** The opaque `next_cursor` the API hands out: base64url of `<UTC time>|<uuid>`. */
export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.at}|${position.id}`).toString('base64url');
}

/** Reads a cursor back; anything that is not one of ours is a 400 on the `cursor` field. */
export function decodeKeysetCursor(cursor: string): KeysetPosition {
  const [at = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !ISO_TIME.test(at) || Number.isNaN(Date.parse(at)) || !UUID.test(id)) {
    throw new ValidationError('cursor is not valid', [{ field: 'cursor', message: 'cursor is not valid' }]);
  }
  return { at, id };
}
