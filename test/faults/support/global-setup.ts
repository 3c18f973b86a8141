import { mkdirSync } from 'node:fs';
import path from 'node:path';
import migrateTestDatabase from '../../support/global-setup';
import { clearOutcomes, FAULT_REPORT_FILE } from './fault-report';

/**
 * The integration databases at the latest migrations, and an empty table of outcomes, unless the
 * run keeps them: `npm test` runs the suite in two steps (the outage files alone) and prints one
 * table of both.
 */
export default function globalSetup(globalConfig?: { maxWorkers?: number }): void {
  migrateTestDatabase(globalConfig);
  mkdirSync(path.dirname(FAULT_REPORT_FILE), { recursive: true });
  if (process.env.KEEP_FAULT_OUTCOMES !== '1') clearOutcomes();
}
