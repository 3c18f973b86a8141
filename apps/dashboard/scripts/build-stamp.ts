import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const DASHBOARD_DIR = path.resolve(__dirname, '..');
export const DIST_DIR = path.join(DASHBOARD_DIR, 'dist');
/** Written into the build: what it was built from. */
export const STAMP_FILE = path.join(DIST_DIR, '.build-stamp');

/** Everything the build is made of: the app's sources and settings, and the installed packages. */
function inputs(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(full);
      return /\.spec\.ts$/.test(entry.name) ? [] : [full];
    });
  const files = [
    ...walk(path.join(DASHBOARD_DIR, 'src')),
    ...walk(path.join(DASHBOARD_DIR, 'public')),
    path.join(DASHBOARD_DIR, 'index.html'),
    path.join(DASHBOARD_DIR, 'vite.config.mts'),
    path.join(DASHBOARD_DIR, 'tsconfig.json'),
    path.resolve(DASHBOARD_DIR, '../../package-lock.json'),
  ];
  return files.filter((file) => existsSync(file)).sort();
}

/** A digest of the build's inputs: a build whose stamp differs is stale. */
export function sourceStamp(): string {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    hash.update(path.relative(DASHBOARD_DIR, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The stamp of the build in dist, or null when there is none. */
export function builtStamp(): string | null {
  return existsSync(STAMP_FILE) && existsSync(path.join(DIST_DIR, 'index.html'))
    ? readFileSync(STAMP_FILE, 'utf8').trim()
    : null;
}
