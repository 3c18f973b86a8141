import type { Producer } from './envelope';

export const TOPICS = {
  recovery: 'recovery.events',
  billing: 'billing.events',
  licensing: 'licensing.events',
} as const satisfies Record<Producer, string>;

export type Topic = (typeof TOPICS)[Producer];

export const ALL_TOPICS: readonly Topic[] = Object.values(TOPICS);

/** Consumer groups are named after the consuming service. */
export const CONSUMER_GROUPS = {
  licensing: 'licensing',
  notifier: 'notifier',
  recovery: 'recovery',
} as const;
