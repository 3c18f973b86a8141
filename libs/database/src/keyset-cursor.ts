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
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?Z$/;

/**
 * A real instant Postgres accepts: every field in range (Date.parse takes 2026-02-30 and year 0,
 * which Postgres refuses, and a refused cursor must be a 400, not a failed query).
 */
function isValidTime(text: string): boolean {
  const match = ISO_TIME.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/** The opaque `next_cursor` the API hands out: base64url of `<UTC time>|<uuid>`. */
export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.at}|${position.id}`).toString('base64url');
}

/** Reads a cursor back; anything that is not one of ours is a 400 on the `cursor` field. */
export function decodeKeysetCursor(cursor: string): KeysetPosition {
  const [at = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !isValidTime(at) || !UUID.test(id)) {
    throw new ValidationError('cursor is not valid', [{ field: 'cursor', message: 'cursor is not valid' }]);
  }
  return { at, id };
}

/**
 * Where a list request starts: the position its `cursor` names (400 when it is not one of ours), or
 * nulls for the first page. Bind both as parameters of the keyset condition
 * `($n::timestamptz IS NULL OR (<time column>, id) < ($n::timestamptz, $m::uuid))`.
 */
export function keysetStart(cursor: string | undefined): { at: string | null; id: string | null } {
  const after = cursor ? decodeKeysetCursor(cursor) : null;
  return { at: after?.at ?? null, id: after?.id ?? null };
}

/** A row of a keyset list: its id and its timestamp selected with `keysetTimeSql(...) AS cursor_at`. */
export interface KeysetRow {
  cursor_at: string;
  id: string;
}

/** One page of a keyset list, as the API answers it. */
export interface KeysetPage<Item> {
  items: Item[];
  next_cursor: string | null;
}

/**
 * The page from `limit + 1` rows read in (timestamp DESC, id DESC) order: the extra row only says
 * that a next page exists, and the cursor names the last row shown. `idOf` names the key column
 * of rows whose key is not `id` (e.g. an audit log's `event_id`).
 */
export function keysetPage<Row extends KeysetRow, Item>(
  rows: readonly Row[],
  limit: number,
  toItem: (row: Row) => Item,
): KeysetPage<Item>;
export function keysetPage<Row extends { cursor_at: string }, Item>(
  rows: readonly Row[],
  limit: number,
  toItem: (row: Row) => Item,
  idOf: (row: Row) => string,
): KeysetPage<Item>;
export function keysetPage<Row extends { cursor_at: string; id?: string }, Item>(
  rows: readonly Row[],
  limit: number,
  toItem: (row: Row) => Item,
  idOf: (row: Row) => string = (row) => row.id!,
): KeysetPage<Item> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toItem),
    next_cursor:
      rows.length > limit && last ? encodeKeysetCursor({ at: last.cursor_at, id: idOf(last) }) : null,
  };
}
