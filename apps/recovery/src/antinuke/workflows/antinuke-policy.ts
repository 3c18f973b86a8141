import type { ActivityOptions } from '@temporalio/workflow';
import { PlatformErrors } from '../../platform/platform.errors';
import { ANTINUKE_NON_RETRYABLE_FAILURES } from './antinuke-contract';

const NON_RETRYABLE = [...ANTINUKE_NON_RETRYABLE_FAILURES];

/**
 * The snapshot must show the guild before further damage (docs/behaviour.md §1.1), and its failure must not
 * hold the incident up (docs/behaviour.md §7.4): a short attempt, three tries, and a minute at most in all.
 * After that the incident opens without a snapshot.
 */
export const INCIDENT_SNAPSHOT_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

/** Removing the actor's roles: retried through a platform outage for two minutes, then recorded as failed. */
export const AUTO_ACTION_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '15 seconds',
    maximumAttempts: 6,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

/**
 * Quarantining the actor: the raid goes on while it waits, so a failed try is retried at once (a
 * fifth of a second, then doubling) through a platform outage for two minutes, then recorded as failed.
 */
export const QUARANTINE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

/** An incident's lockdown: like the quarantine. */
export const INCIDENT_LOCKDOWN_OPTIONS: ActivityOptions = QUARANTINE_OPTIONS;

/**
 * Recording the incident and its event: a database write that must not be lost, so it is retried
 * (up to a minute apart) until the database is back. Detection goes on meanwhile.
 */
export const OPEN_INCIDENT_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [PlatformErrors.guildNotFound.code],
  },
};

/** Adding what a raider went on to do to members to their recorded incident: like recording it. */
export const RECORD_TARGETS_OPTIONS: ActivityOptions = OPEN_INCIDENT_OPTIONS;

/**
 * Continue-as-new after this many signals (or sooner when Temporal suggests it, or the history
 * passes MAX_HISTORY_EVENTS). The worker caches no workflows (recovery-worker.ts), so every
 * workflow task replays the run's history: a short history keeps each signal cheap, and a guild
 * protected for years never nears Temporal's history limits.
 */
export const SIGNALS_PER_RUN = 500;
export const MAX_HISTORY_EVENTS = 2_000;
