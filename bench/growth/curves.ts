import { percentile } from '../percentile';
import { type BenchGuild, CASES, runCase } from '../restore.bench';
import { measureSnapshot, SNAPSHOT_MAXIMA, type SnapshotGuildShape } from '../snapshot.bench';

/**
 * How snapshot and restore time grow with the guild: one guild at 25, 50 and 100 % of the
 * platform's maxima (roles and channels scaled; overwrites follow the channels), through the
 * snapshot and restore benches' own measurements, on the database of DATABASE_URL.
 *
 * Linear means: a straight line fitted through the three (items, time) points (least squares) is
 * within LINEAR_TOLERANCE of every measured time. A fixed cost (the rounds' first reads, a restore's
 * phases and rate-limit windows) is the line's intercept, so time per item falls somewhat with size
 * while the curve is still a line; the table shows both.
 */
export const FRACTIONS = [0.25, 0.5, 1] as const;
export const LINEAR_TOLERANCE = 0.1;
const SNAPSHOT_ROUNDS = 30;

interface Point {
  fraction: number;
  items: number;
  ms: number;
}

/**
 * Snapshot shape at `fraction`: channels (500 at the maxima) in categories of 1 + n, n at least 5
 * (the generated guild's settings name channel 4 of category 1), custom roles scaled. 126, 250 and
 * 500 channels; 63, 125 and 250 roles.
 */
export function snapshotShape(fraction: number): SnapshotGuildShape {
  const channels = 500 * fraction;
  const channelsPerCategory = Math.max(
    5,
    Math.round((SNAPSHOT_MAXIMA.channelsPerCategory + 1) * fraction) - 1,
  );
  return {
    customRoles: Math.round(250 * fraction) - 2,
    categories: Math.round(channels / (channelsPerCategory + 1)),
    channelsPerCategory,
    members: SNAPSHOT_MAXIMA.members,
  };
}

/** Restore case at `fraction` of the bench's maxima case (50 categories of 1 + 9 channels). */
export function restoreShape(fraction: number): BenchGuild {
  const maxima = CASES.find((c) => c.label === "platform's maxima")!;
  return {
    ...maxima,
    label: `${Math.round(fraction * 100)} % of the maxima`,
    customRoles: Math.round(250 * fraction) - 2,
    categories: Math.round(maxima.categories * fraction),
  };
}

/** The least-squares line through the points, and the largest deviation from it (relative). */
function fit(points: Point[]): { intercept: number; slope: number; worst: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.items, 0) / n;
  const my = points.reduce((s, p) => s + p.ms, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.items - mx) * (p.ms - my), 0);
  const sxx = points.reduce((s, p) => s + (p.items - mx) ** 2, 0);
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const worst = Math.max(...points.map((p) => Math.abs(intercept + slope * p.items - p.ms) / p.ms));
  return { intercept, slope, worst };
}

function report(label: string, unit: string, points: Point[]): boolean {
  const line = fit(points);
  const linear = line.worst <= LINEAR_TOLERANCE;
  console.log(`  ${label}`);
  for (const p of points) {
    console.log(
      `    ${`${Math.round(p.fraction * 100)} %`.padStart(5)}  ${String(p.items).padStart(5)} ${unit}  ` +
        `${p.ms.toFixed(1).padStart(9)} ms  ${(p.ms / p.items).toFixed(3).padStart(7)} ms per item  ` +
        `fit ${(line.intercept + line.slope * p.items).toFixed(1)} ms`,
    );
  }
  console.log(
    `    line: ${line.intercept.toFixed(1)} ms + ${line.slope.toFixed(3)} ms per item; ` +
      `worst point ${(line.worst * 100).toFixed(1)} % off the line: ` +
      `${linear ? 'linear' : 'NOT linear'} (tolerance ${LINEAR_TOLERANCE * 100} %)`,
  );
  return linear;
}

/** Prints both curves; true when both are linear within the tolerance. */
export async function measureCurves(): Promise<boolean> {
  const snapshots: Point[] = [];
  for (const fraction of FRACTIONS) {
    const measure = await measureSnapshot(snapshotShape(fraction), SNAPSHOT_ROUNDS);
    // Items: roles, channels and their overwrites, what the payload is made of.
    snapshots.push({
      fraction,
      items: measure.roles + measure.channels + measure.overrides,
      ms: percentile(measure.snapshotMs, 50),
    });
  }
  const restores: Point[] = [];
  for (const fraction of FRACTIONS) {
    const result = await runCase(restoreShape(fraction));
    if (!result.passed) throw new Error(`the restore at ${fraction * 100} % did not complete`);
    // Items: the changes the preview listed (the restore's work), half of the guild raided.
    restores.push({ fraction, items: result.changes, ms: result.wallMs });
  }
  console.log('\nsnapshot and restore time by guild size (25, 50, 100 % of the platform maxima)');
  const snapshotLinear = report(
    `snapshot (SnapshotService.create, p50 of ${SNAPSHOT_ROUNDS}; items: roles + channels + overwrites)`,
    'items',
    snapshots,
  );
  const restoreLinear = report(
    'restore (runRestore wall time, rate limits on; items: changes in the preview)',
    'items',
    restores,
  );
  return snapshotLinear && restoreLinear;
}
