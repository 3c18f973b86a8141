import 'reflect-metadata';
// The curves below run on the filled database: it is DATABASE_URL before test-env's defaults.
import './growth/env';
import '../test/support/test-env';
import {
  databaseUrl,
  dropDatabase,
  freshDatabase,
  openGrowthDataSource,
  withClient,
} from './growth/database';
import { fillGrowth } from './growth/fill';
import { type HotPath, hotPaths, seedWorkingSet } from './growth/hot-paths';
import { capturePlans, judgePlans, LARGE_TABLES, partialIndexes } from './growth/plans';
import { measureCurves } from './growth/curves';
import { measureImageGrowth } from './growth/images';
import { percentile } from './percentile';

/**
 * `npm run bench:growth`: the hot paths with a few years of a large installation in the tables,
 * against the same paths on empty tables (docs/testing.md, "Growth").
 *
 * Two databases, migrated as `npm run migrate` does: `<name>_empty` holds only the working set
 * (the rows the paths are asked for), `<name>` the same working set plus the history `fillGrowth`
 * generates at GROWTH_SCALE (default 1). The paths then run on both in the same rounds, one after
 * the other in alternating order, so the machine's load weighs on both alike; p50 at scale must be
 * within 1.25x of p50 empty. Each path's statements are also explained on the filled database and
 * must be bounded (plans.ts). Then snapshot and restore of one guild at 25, 50 and 100 % of the
 * platform's maxima, on the filled database.
 *
 * Last, the bytes a guild's images take over a month of daily snapshots (growth/images.ts).
 *
 * GROWTH_SCALE=0.01 for a quick try; GROWTH_ROUNDS (default 300) timed rounds after 30 warm-up;
 * GROWTH_KEEP=1 keeps the databases (dropped at the end otherwise); GROWTH_CURVES=0 skips the curves,
 * GROWTH_CURVES_ONLY=1 runs only them (on the database a GROWTH_KEEP=1 run left); GROWTH_IMAGES_ONLY=1
 * runs only the images' month, on a database of its own.
 */
const SCALE = Number(process.env.GROWTH_SCALE ?? '1');
const ROUNDS = Number(process.env.GROWTH_ROUNDS ?? '300');
const WARM_UP = 30;
const LIMIT = 1.25;
/** Claims of due DMs the measurements may make (both passes, warm-ups, the plans). */
const DM_ROUNDS = 2 * WARM_UP + 3 * ROUNDS + 1;
/** Estimated rows a Sort may take before the plan counts as unbounded. */
const MAX_SORT_ROWS = 5_000;

interface Figures {
  p50: number;
  p95: number;
}

function figures(samples: number[]): Figures {
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function main(): Promise<void> {
  const filledUrl = process.env.DATABASE_URL!;
  if (process.env.GROWTH_IMAGES_ONLY === '1') {
    const imagesUrl = databaseUrl(filledUrl, `${new URL(filledUrl).pathname.slice(1)}_images`);
    await freshDatabase(imagesUrl);
    if (!(await measureImageGrowth(imagesUrl))) process.exitCode = 1;
    await dropDatabase(imagesUrl);
    return;
  }
  if (process.env.GROWTH_CURVES_ONLY === '1') {
    // On the database a GROWTH_KEEP=1 run left.
    if (!(await measureCurves())) process.exitCode = 1;
    return;
  }
  const emptyUrl = databaseUrl(filledUrl, `${new URL(filledUrl).pathname.slice(1)}_empty`);
  const started = performance.now();
  console.log(`growth benchmark, scale ${SCALE}: ${filledUrl} (filled) and ${emptyUrl} (empty)`);
  await freshDatabase(emptyUrl);
  await freshDatabase(filledUrl);
  await withClient(emptyUrl, async (client) => {
    await seedWorkingSet(client, DM_ROUNDS);
    await client.query('VACUUM ANALYZE');
  });
  const fillStarted = performance.now();
  const steps = await withClient(filledUrl, async (client) => {
    await seedWorkingSet(client, DM_ROUNDS);
    return fillGrowth(client, SCALE, (line) => console.log(line));
  });
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  console.log(
    `fill: ${steps.reduce((sum, step) => sum + step.rows, 0).toLocaleString('en')} rows in ${fillSeconds.toFixed(0)} s`,
  );
  await withClient(filledUrl, async (client) => {
    const { rows } = await client.query<{ size: string }>(
      `SELECT pg_size_pretty(pg_database_size(current_database())) AS size`,
    );
    console.log(`filled database: ${rows[0].size}`);
  });

  const empty = await openGrowthDataSource(emptyUrl);
  const filled = await openGrowthDataSource(filledUrl);
  const emptyPaths = await hotPaths(empty);
  const filledPaths = await hotPaths(filled);
  let failed = false;
  try {
    // Plans of what each path sends, on the filled tables.
    const verdicts = new Map<string, ReturnType<typeof judgePlans>>();
    const partial = await withClient(filledUrl, partialIndexes);
    for (const path of filledPaths.paths) {
      const plans = await capturePlans(() => path.run());
      await path.settle?.();
      verdicts.set(path.name, judgePlans(plans, path.table, LARGE_TABLES, MAX_SORT_ROWS, partial));
    }

    const time = async (path: HotPath) => {
      const t = performance.now();
      await path.run();
      const ms = performance.now() - t;
      await path.settle?.();
      return ms;
    };
    /** The paths `indices` on both databases in the same rounds, which one first alternating. */
    const measure = async (indices: number[], rounds: number) => {
      const samples = new Map<number, { empty: number[]; filled: number[] }>();
      for (const i of indices) samples.set(i, { empty: [], filled: [] });
      for (let round = 0; round < WARM_UP + rounds; round++) {
        for (const i of indices) {
          const a = emptyPaths.paths[i];
          const b = filledPaths.paths[i];
          let emptyMs: number;
          let filledMs: number;
          if (round % 2 === 0) {
            emptyMs = await time(a);
            filledMs = await time(b);
          } else {
            filledMs = await time(b);
            emptyMs = await time(a);
          }
          if (round < WARM_UP) continue;
          samples.get(i)!.empty.push(emptyMs);
          samples.get(i)!.filled.push(filledMs);
        }
      }
      return new Map(
        [...samples].map(([i, { empty: e, filled: f }]) => {
          const a = figures(e);
          const b = figures(f);
          return [i, { empty: a, filled: b, ratio: b.p50 / a.p50 }] as const;
        }),
      );
    };
    const all = filledPaths.paths.map((_, i) => i);
    const first = await measure(all, ROUNDS);
    // A path over the limit is measured once more, alone with the others over it, for twice the
    // rounds: on a shared machine a burst of someone else's work can land on one side of a pair.
    // Both figures are printed; the verdict is the second's.
    const over = all.filter((i) => first.get(i)!.ratio > LIMIT);
    const again: Awaited<ReturnType<typeof measure>> = over.length
      ? await measure(over, ROUNDS * 2)
      : new Map();

    console.log(`\nhot paths: ${ROUNDS} rounds after ${WARM_UP} warm-up, empty and filled alternating; ms`);
    console.log(
      `  ${'path'.padEnd(46)} ${'empty p50'.padStart(9)} ${'p95'.padStart(7)} ${'scale p50'.padStart(9)} ` +
        `${'p95'.padStart(7)} ${'ratio'.padStart(6)}  verdict`,
    );
    for (const i of all) {
      const path = filledPaths.paths[i];
      const row = again.get(i) ?? first.get(i)!;
      const verdict = verdicts.get(path.name)!;
      const pass = row.ratio <= LIMIT && verdict.problems.length === 0;
      if (!pass) failed = true;
      const remeasured = again.has(i)
        ? ` (first ${first.get(i)!.ratio.toFixed(2)}x; these figures: again, ${ROUNDS * 2} rounds)`
        : '';
      console.log(
        `  ${path.name.padEnd(46)} ${row.empty.p50.toFixed(2).padStart(9)} ${row.empty.p95.toFixed(2).padStart(7)} ` +
          `${row.filled.p50.toFixed(2).padStart(9)} ${row.filled.p95.toFixed(2).padStart(7)} ` +
          `${`${row.ratio.toFixed(2)}x`.padStart(6)}  ${pass ? 'PASS' : 'FAIL'}${remeasured}` +
          `${verdict.problems.length ? ` (plan: ${verdict.problems.join('; ')})` : ''}`,
      );
    }
    console.log('\nplans at scale (each statement the path sent: top node, then its scans)');
    for (const path of filledPaths.paths) {
      console.log(`  ${path.name.padEnd(46)} ${verdicts.get(path.name)!.summary}`);
    }
  } finally {
    await emptyPaths.close();
    await filledPaths.close();
    await empty.destroy();
    await filled.destroy();
  }
  console.log(
    `\nhot paths: ${failed ? 'FAIL' : 'PASS'} (every path's p50 at scale within ${LIMIT}x of empty, plans bounded)`,
  );

  if (process.env.GROWTH_CURVES !== '0') {
    const linear = await measureCurves();
    if (!linear) {
      console.log('curves: not linear within the tolerance (see above)');
      process.exitCode = 1;
    }
  }
  if (!(await measureImageGrowth(filledUrl))) process.exitCode = 1;
  if (process.env.GROWTH_KEEP !== '1') {
    await dropDatabase(emptyUrl);
    await dropDatabase(filledUrl);
  }
  console.log(`\ngrowth benchmark took ${((performance.now() - started) / 60_000).toFixed(1)} min`);
  if (failed) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
