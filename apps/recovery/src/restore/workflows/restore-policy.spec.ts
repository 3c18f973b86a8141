import { RESTORE_ACTIVITY_OPTIONS } from './restore-policy';

describe('restore activity policy', () => {
  it('is spec §8’s: 5 minutes per attempt, 1 s doubling to 1 minute, 10 attempts', () => {
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

  it('never retries what a retry cannot fix', () => {
    expect(RESTORE_ACTIVITY_OPTIONS.retry?.nonRetryableErrorTypes).toEqual(
      expect.arrayContaining(['PermissionDenied', 'GuildNotFound', 'ErrSnapshotUnsupported']),
    );
  });
});
