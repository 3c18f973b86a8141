import type { ActivityOptions } from '@temporalio/workflow';
import { NON_RETRYABLE_FAILURES } from './restore-contract';

/**
 * docs/behaviour.md §8: 5 minutes per attempt; retries from 1 s doubling to at most 1 minute, 10 attempts in
 * all. Rate limiting (429) is waited out inside the platform client first, up to a minute; a
 * longer wait (a creation quota) ends the step's call with a pause the workflow waits out on a
 * timer (StepOutcome.pause). What reaches this policy is a platform outage or a crash. Failures no
 * retry can fix end the run at once.
 */
export const RESTORE_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  // A worker that dies (SIGKILL, node lost) stops heartbeating; its activity is handed to another
  // worker after this, not after the 5-minute attempt time-out.
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURES],
  },
};
