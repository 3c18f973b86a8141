import { readOutcomes } from './fault-report';

const COLUMNS = ['fault', 'checked', 'result', 'sent', 'delivered', 'duplicated', 'lost', 'notes'] as const;

/** Prints what the suite tried and what survived; the tests themselves fail on any loss. */
export default function globalTeardown(): void {
  const rows = readOutcomes().map((outcome) => COLUMNS.map((column) => String(outcome[column] ?? '')));
  const widths = COLUMNS.map((column, index) =>
    Math.min(60, Math.max(column.length, ...rows.map((row) => row[index].length))),
  );
  const line = (cells: readonly string[]) =>
    cells.map((cell, index) => cell.slice(0, widths[index]).padEnd(widths[index])).join(' | ');
  const lost = rows.reduce((sum, row) => sum + Number(row[6]), 0);
  process.stdout.write(
    [
      '',
      'Faults and load: what was tried, what survived',
      line(COLUMNS),
      widths.map((width) => '-'.repeat(width)).join('-|-'),
      ...rows.map(line),
      `${rows.length} scenarios, ${lost} units lost${rows.length === 0 ? ' (no scenario recorded an outcome)' : ''}`,
      '',
    ].join('\n'),
  );
}
