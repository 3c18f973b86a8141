import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ActivityOptions } from '@temporalio/workflow';
import { CommonErrors, type ProblemKind } from '@lib/problem-details';
import { AntiNukeErrors } from './antinuke/antinuke.errors';
import { ANTINUKE_NON_RETRYABLE_FAILURES } from './antinuke/workflows/antinuke-contract';
import * as antinukePolicy from './antinuke/workflows/antinuke-policy';
import { GuildErrors } from './guilds/guilds.errors';
import { PlatformErrors } from './platform/platform.errors';
import { RestoreErrors } from './restore/restore.errors';
import { NON_RETRYABLE_FAILURES } from './restore/workflows/restore-contract';
import { SnapshotErrors } from './snapshots/snapshots.errors';

/**
 * Workflow code names the problems no retry can fix by the named problems of the `*.errors.ts`
 * modules it imports (they load in Temporal's sandbox: see libs/problem-details/src/definitions.ts),
 * so each failure type it gives Temporal must stay the code of a named problem the activities throw,
 * and none is written there as a string.
 */
const NAMED_CODES = new Set(
  [CommonErrors, GuildErrors, PlatformErrors, SnapshotErrors, RestoreErrors, AntiNukeErrors].flatMap((area) =>
    Object.values(area as Record<string, ProblemKind>).map((problem) => problem.code),
  ),
);

const isProblemCode = (type: string) => type.startsWith('Err');

/** The workflow code of each area: what Temporal's sandbox runs (fixtures and specs aside). */
const WORKFLOW_DIRS = ['restore/workflows', 'antinuke/workflows'].map((dir) => path.join(__dirname, dir));
const workflowModules = WORKFLOW_DIRS.flatMap((dir) =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.ts') && !/\.(spec|fixture)\.ts$/.test(file))
    .map((file) => path.join(dir, file)),
);

describe('the failure types workflow code names', () => {
  const antinukeOptions = Object.values(antinukePolicy).filter(
    (value): value is ActivityOptions => typeof value === 'object' && value !== null && 'retry' in value,
  );
  const named = [
    ...NON_RETRYABLE_FAILURES,
    ...ANTINUKE_NON_RETRYABLE_FAILURES,
    ...antinukeOptions.flatMap((options) => options.retry?.nonRetryableErrorTypes ?? []),
  ].filter(isProblemCode);

  it('include the problem codes no retry can fix', () => {
    expect(new Set(named)).toEqual(
      new Set([
        'ErrSnapshotUnsupported',
        'ErrSnapshotNotFound',
        'ErrRestoreJobNotFound',
        'ErrGuildNotFound',
        'ErrBotPermissionDenied',
        'ErrPlatformRequestRefused',
        'ErrSnapshotTooLarge',
        'ErrSnapshotLimitReached',
      ]),
    );
  });

  it('are each the code of a named problem', () => {
    expect(named.filter((code) => !NAMED_CODES.has(code))).toEqual([]);
  });

  it('are never written as a string in workflow code', () => {
    expect(workflowModules.length).toBeGreaterThan(0);
    const literals = workflowModules.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/['"`](Err[A-Z]\w*)/g)].map(
        (match) => `${path.relative(__dirname, file)}: ${match[1]}`,
      ),
    );
    expect(literals).toEqual([]);
  });
});
