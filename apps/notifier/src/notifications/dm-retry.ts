import { ChatPlatformError, isChatPlatformError } from '@lib/chat-platform';

export type DmFailureDecision =
  | { kind: 'give_up'; status: 'undeliverable' | 'failed'; error: string }
  | { kind: 'retry'; delayMs: number; error: string };

const MAX_DELAY_MS = 3_600_000;

/**
 * What to do after a DM failed. The platform refusing the DM itself (the user closed DMs: 50007,
 * unknown user, a malformed message) will refuse it again: given up at once, never retried. An
 * outage (5xx, timeout, network) is retried with exponential backoff and jitter until attempts run
 * out. `random` is injectable for tests.
 */
export function decideAfterFailure(
  error: unknown,
  attempts: number,
  policy: { baseMs: number; maxAttempts: number },
  random: () => number = Math.random,
): DmFailureDecision {
  const message = describe(error);
  if (isChatPlatformError(error) && !error.retryable) {
    return { kind: 'give_up', status: 'undeliverable', error: message };
  }
  if (attempts >= policy.maxAttempts) {
    return { kind: 'give_up', status: 'failed', error: `gave up after ${attempts} attempts: ${message}` };
  }
  const exponential = Math.min(policy.baseMs * 2 ** (attempts - 1), MAX_DELAY_MS);
  // ±20 %: DMs that failed together do not all come back at the same instant.
  return { kind: 'retry', delayMs: Math.round(exponential * (0.8 + 0.4 * random())), error: message };
}

function describe(error: unknown): string {
  if (error instanceof ChatPlatformError) {
    const code = error.details.platform_code ? ` ${error.details.platform_code}` : '';
    return `${error.code}${code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
