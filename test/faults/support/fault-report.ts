import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/** One row of the table `npm run test:faults` prints: a fault, what was checked, what survived. */
export interface FaultOutcome {
  fault: string;
  checked: string;
  /** Units of work the scenario sent (events, requests, webhooks, charges...). */
  sent: number;
  /** Applied exactly as intended. */
  delivered: number;
  /** Applied more than once (a second charge, a second DM, an event consumed twice). */
  duplicated: number;
  /** Sent and never applied or recorded. */
  lost: number;
  /** Anything worth a figure (latencies, retries, 429s); printed after the counts. */
  notes?: string;
}

/** Where the suite's outcomes collect; one file per `npm run test:faults`, read by the teardown. */
export const FAULT_REPORT_FILE = path.resolve(__dirname, '../../../.data/faults/outcomes.jsonl');

/**
 * Records a scenario's outcome for the final table, then fails the test when anything was lost or
 * applied twice (the table still shows the row: it is written first).
 */
export function recordOutcome(outcome: FaultOutcome): void {
  const ok = outcome.lost === 0 && outcome.duplicated === 0;
  appendFileSync(FAULT_REPORT_FILE, `${JSON.stringify({ ...outcome, result: ok ? 'ok' : 'FAILED' })}\n`);
  if (!ok) {
    throw new Error(
      `${outcome.fault}: ${outcome.lost} lost and ${outcome.duplicated} duplicated of ${outcome.sent} sent`,
    );
  }
}

export function readOutcomes(): (FaultOutcome & { result: string })[] {
  if (!existsSync(FAULT_REPORT_FILE)) return [];
  return readFileSync(FAULT_REPORT_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FaultOutcome & { result: string });
}

export function clearOutcomes(): void {
  rmSync(FAULT_REPORT_FILE, { force: true });
}
