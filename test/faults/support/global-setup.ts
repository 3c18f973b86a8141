import { mkdirSync } from 'node:fs';
import path from 'node:path';
import migrateTestDatabase from '../../support/global-setup';
import { clearOutcomes, FAULT_REPORT_FILE } from './fault-report';

/** The integration database at the latest migrations, and an empty table of outcomes. */
export default function globalSetup(): void {
  migrateTestDatabase();
  mkdirSync(path.dirname(FAULT_REPORT_FILE), { recursive: true });
  clearOutcomes();
}
