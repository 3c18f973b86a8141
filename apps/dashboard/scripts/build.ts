import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { builtStamp, DASHBOARD_DIR, sourceStamp, STAMP_FILE } from './build-stamp';

/**
 * `npm run dashboard:build`: type-checks the dashboard and builds it with Vite into
 * apps/dashboard/dist, stamped with a digest of what it was built from.
 * `--if-stale` (what `npm start` runs first): does nothing when the build in dist was made from
 * the sources as they are, so only the first start, or one after a change, pays for the build.
 */
const ROOT = path.resolve(DASHBOARD_DIR, '../..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

function build(): void {
  const stamp = sourceStamp();
  process.stderr.write('[dashboard] building apps/dashboard (a few seconds, once)\n');
  execFileSync(bin('tsc'), ['--noEmit', '-p', DASHBOARD_DIR], { cwd: ROOT, stdio: 'inherit' });
  execFileSync(
    bin('vite'),
    ['build', '--config', path.join(DASHBOARD_DIR, 'vite.config.mts'), '--logLevel', 'warn'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  writeFileSync(STAMP_FILE, `${stamp}\n`);
}

if (process.argv.includes('--if-stale') && builtStamp() === sourceStamp()) {
  process.exit(0);
}
try {
  build();
} catch {
  process.stderr.write('[dashboard] the build failed (see above)\n');
  process.exit(1);
}
