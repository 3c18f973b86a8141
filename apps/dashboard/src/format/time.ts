const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** "3 hours ago", "in 5 minutes": how far `iso` is from `now`, in the reader's language. */
export function relativeTime(iso: string, now = Date.now(), locale?: string): string {
  const difference = Date.parse(iso) - now;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of units) {
    if (Math.abs(difference) >= size || unit === 'second') {
      return format.format(Math.round(difference / size), unit);
    }
  }
  return format.format(0, 'second');
}

/** A date and time in the reader's own format and time zone. */
export function dateTime(iso: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

/** "1 min 5 s", "850 ms": a duration between two instants. */
export function duration(fromIso: string, toIso: string): string {
  const ms = Math.max(0, Date.parse(toIso) - Date.parse(fromIso));
  if (ms < 1_000) return `${ms} ms`;
  const seconds = Math.round(ms / 1_000);
  const minutes = Math.floor(seconds / 60);
  return minutes ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
}

/** "12.5 KB": a size in bytes. */
export function byteSize(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(2)} MB`;
}

/** The next 00:00 UTC after `now`: when the daily scheduled snapshot is taken (±15 min). */
export function nextMidnightUtc(now = Date.now()): string {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return next.toISOString();
}

/** ISO 8601 durations as the API estimates them (`PT1M30S`) in words. */
export function readableDuration(iso: string): string {
  const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso);
  if (!match) return iso;
  const [, hours, minutes, seconds] = match;
  const parts = [
    hours && `${hours} h`,
    minutes && `${minutes} min`,
    seconds && `${Math.ceil(Number(seconds))} s`,
  ].filter(Boolean);
  return parts.length ? `about ${parts.join(' ')}` : 'under a second';
}
