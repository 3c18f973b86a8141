/** A column's value as a JSON answer carries it: a `Date` becomes its ISO 8601 string. */
type IsoDate<Value> = Value extends Date ? string : Value;

/**
 * A row with each of its `Date` columns as an ISO 8601 string (`Date | null` becomes
 * `string | null`), every other column as it is: the type of a view that answers a row's columns.
 */
export type WithIsoDates<Row> = { [Column in keyof Row]: IsoDate<Row[Column]> };
