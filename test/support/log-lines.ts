/**
 * The lines of a process's output that report an error: JSON log lines at level error or fatal
 * (pino's 50 and 60, or by name) or carrying an `err`, and any other line that says "error" (what libraries print
 * on their own, such as TypeORM's "Postgres pool raised an error").
 */
export function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => {
    const trimmed = line.trim();
    if (trimmed === '') return false;
    if (trimmed.startsWith('{')) {
      try {
        const entry = JSON.parse(trimmed) as { level?: unknown; err?: unknown };
        const { level } = entry;
        const severe = typeof level === 'number' ? level >= 50 : level === 'error' || level === 'fatal';
        return severe || entry.err !== undefined;
      } catch {
        // Not JSON after all: judged as text below.
      }
    }
    return /error/i.test(trimmed);
  });
}
