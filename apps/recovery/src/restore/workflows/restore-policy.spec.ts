import { RESTORE_ACTIVITY_OPTIONS } from './restore-policy';

describe('restore activity policy', () => {
  it('is docs/behaviour.md §8’s: 5 minutes per attempt, 1 s doubling to 1 minute, 10 attempts', () => {
    expect(RESTORE_ACTIVITY_OPTIONS).toMatchObject({
      startToCloseTimeout: '5 minutes',
      retry: {
        initialInterval: '1 second',
        backoffCoefficient: 2,
        maximumInterval: '1 minute',
        maximumAttempts: 10,
      },
    });
  });

  it('stops at once for the spec’s two types, a refused request and stored data that cannot come back', () => {
    expect([...(RESTORE_ACTIVITY_OPTIONS.retry?.nonRetryableErrorTypes ?? [])].sort()).toEqual([
      'ErrRestoreJobNotFound',
      'ErrSnapshotNotFound',
      'ErrSnapshotUnsupported',
      'GuildNotFound',
      'InvalidRequest',
      'PermissionDenied',
    ]);
  });

  it('retries what a fresh read of the guild may fix: a vanished item, an outage', () => {
    for (const type of ['NotFound', 'PlatformUnavailable', 'DmBlocked', 'Error']) {
      expect(RESTORE_ACTIVITY_OPTIONS.retry?.nonRetryableErrorTypes).not.toContain(type);
    }
  });
});
