/**
 * A UUID v7 made from the workflow's clock and its deterministic random UUID (v4), so a replay
 * mints the same incident id and a retried activity finds the row its first attempt wrote.
 */
export function incidentIdFrom(nowMs: number, randomUuid: string): string {
  const time = Math.floor(nowMs).toString(16).padStart(12, '0').slice(-12);
  const random = randomUuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(random)) throw new Error(`not a UUID: ${randomUuid}`);
  // 48 bits of time, version 7, then v4's random bits from after its version nibble; its variant
  // nibble lands where RFC 9562 wants it (index 16).
  const hex = `${time}7${random.slice(13)}`.toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
