import { type ChatPlatformError, isChatPlatformError } from '@lib/chat-platform';
import type { PlatformWait } from '../workflows/restore-contract';

/** A platform call that failed RateLimited: which limit, from the route it was refused on. */
export function platformWaitOf(error: unknown, now = Date.now()): PlatformWait | undefined {
  if (!isChatPlatformError(error) || error.code !== 'RateLimited') return undefined;
  const { method, path, retry_after_ms: retryAfterMs } = (error as ChatPlatformError).details;
  const route = `${method} ${(path ?? '').replace(/^.*\/v\d+/, '')}`;
  let reason: PlatformWait['reason'] = 'rate_limit';
  if (/^POST \/guilds\/\d+\/roles$/.test(route)) reason = 'role_creation_quota';
  else if (/^POST \/guilds\/\d+\/channels$/.test(route)) reason = 'channel_creation_quota';
  else if (/^PATCH \/channels\/\d+$/.test(route)) reason = 'channel_edit_limit';
  return { reason, until: new Date(now + (retryAfterMs ?? 0)).toISOString() };
}

/**
 * The wait the platform asked for, if work side by side ended on one (the longest, if several);
 * any other failure is thrown.
 */
export function waitedFor(settled: PromiseSettledResult<unknown>[]): PlatformWait | undefined {
  let wait: PlatformWait | undefined;
  for (const result of settled) {
    if (result.status === 'fulfilled') continue;
    const pause = platformWaitOf(result.reason);
    if (!pause) throw result.reason;
    if (!wait || pause.until > wait.until) wait = pause;
  }
  return wait;
}
