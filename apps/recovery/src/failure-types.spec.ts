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
 * Workflow code runs in Temporal's sandbox, which cannot load the `*.errors.ts` modules (they
 * bring in Nest), so the failure types it names are written there as strings: each must stay the
 * code of a named problem the activities throw.
 */
const NAMED_CODES = new Set(
  [CommonErrors, GuildErrors, PlatformErrors, SnapshotErrors, RestoreErrors, AntiNukeErrors].flatMap((area) =>
    Object.values(area as Record<string, ProblemKind>).map((problem) => problem.code),
  ),
);

const isProblemCode = (type: string) => type.startsWith('Err');

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
});
