import type { ActivityOptions } from '@temporalio/common';
import { NON_RETRYABLE_FAILURES } from './restore-contract';

/**
 * Spec §8: 5 minutes per attempt; retries from 1 s doubling to at most 1 minute, 10 attempts in
 * all. Rate limiting (429) is waited out inside the platform client first; what reaches this
 * policy is a platform outage or a crash. Failures no retry can fix end the run at once.
 */
export const RESTORE_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURES],
  },
};
