const KST_OFFSET_MS = 9 * 60 * 60 * 1000;

/** The provider's timestamps: ISO 8601 in Korea time, whole seconds, e.g. `2026-11-22T15:04:05+09:00`. */
export function kstTimestamp(date: Date): string {
  return `${new Date(date.getTime() + KST_OFFSET_MS).toISOString().slice(0, 19)}+09:00`;
}

/**
 * Drops the milliseconds, so a recorded `Date` and the timestamp sent for it name the same instant.
 */
export function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
