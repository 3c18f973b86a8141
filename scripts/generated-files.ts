import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

export interface GeneratedFile {
  file: string;
  /** The file's content as the code makes it now; called after the outputs before it are written. */
  generated: () => string | Promise<string>;
  /** What a stale committed file says about the difference (default: that it differs). */
  describeDrift?: (committed: string, generated: string) => string;
}

/**
 * The shared body of the generator scripts (`npm run openapi`, `dashboard:client`, `config-table`):
 * writes each output that changed, in order; with `check`, writes nothing and returns 1 when a
 * committed file is not what the code generates, naming the command that regenerates it.
 */
export async function writeOrCheck(
  outputs: GeneratedFile[],
  check: boolean,
  command: string,
): Promise<number> {
  let stale = 0;
  for (const output of outputs) {
    const name = path.relative(ROOT, output.file);
    const committed = existsSync(output.file) ? readFileSync(output.file, 'utf8') : '';
    const generated = await output.generated();
    if (committed === generated) {
      process.stdout.write(`${name}: up to date\n`);
    } else if (check) {
      stale++;
      const drift = output.describeDrift?.(committed, generated);
      process.stdout.write(`${name}: differs from the code${drift ? `\n${drift}` : ''}\n`);
    } else {
      writeFileSync(output.file, generated);
      process.stdout.write(`${name}: written\n`);
    }
  }
  if (stale) process.stdout.write(`Run \`${command}\` and commit the result.\n`);
  return stale ? 1 : 0;
}

/** Runs a generator script's main: exit 0, 1 (stale, with --check) or 2 (it failed). */
export function runGenerator(name: string, main: (check: boolean) => Promise<number>): void {
  main(process.argv.includes('--check')).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${name} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(2);
    },
  );
}

/**
 * For the drift specs: runs a generator script with `--check` as `npm run` runs it (its ES-module
 * dependencies, openapi-typescript and prettier's plugins, do not load under Jest) and returns what
 * it printed; a stale file or a failure throws with the script's own output.
 */
export function checkGenerator(script: string): string {
  try {
    return execFileSync(process.execPath, ['-r', '@swc-node/register', script, '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${stdout ?? ''}${stderr ?? ''}`.trim() || String(error));
  }
}
