/**
 * The nearest-rank percentile `p` (0-100] of `values`: the smallest value with at least p % of the
 * values at or below it. One definition for every bench, so their p50s and p99s compare.
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
