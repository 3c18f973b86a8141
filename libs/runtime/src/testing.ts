/**
 * This library's spec helpers, imported by specs as `@lib/runtime/testing`. They run under Jest,
 * so they stay out of the index that the apps load.
 */
export * from './retry-timer.fixture';
