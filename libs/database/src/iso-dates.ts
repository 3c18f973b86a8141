/** A column's value as a JSON answer carries it: a `Date` becomes its ISO 8601 string. */
type IsoDate<Value> = Value extends Date ? string : Value;

/**
 * A row with each of its `Date` columns as an ISO 8601 string (`Date | null` becomes
 * `string | null`), every other column as it is: the type of a view that answers a row's columns.
 */
export type WithIsoDates<Row> = { [Column in keyof Row]: IsoDate<Row[Column]> };

/**
 * The row as such a view answers it: its `Date` columns as ISO 8601 strings, the others as they
 * are. Only the row's own columns change: a date inside a jsonb document stays what it is. Pass
 * only the columns the view shows (leave a keyset `cursor_at` out before).
 */
export function withIsoDates<Row extends object>(row: Row): WithIsoDates<Row> {
  return Object.fromEntries(
    Object.entries(row).map(([column, value]) => [
      column,
      value instanceof Date ? value.toISOString() : value,
    ]),
  ) as WithIsoDates<Row>;
}
