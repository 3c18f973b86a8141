import { type ChatPlatformError, type ChatPlatformErrorCode, isChatPlatformError } from '@lib/chat-platform';
import type { DomainError } from '@lib/problem-details';
import { PlatformErrors } from './platform.errors';

/**
 * What a user sees when the chat platform fails a request made on their behalf. Anything that is
 * not a platform failure is rethrown unchanged.
 */
export function toUserFacingError(error: unknown): unknown {
  if (!isChatPlatformError(error)) return error;
  switch ((error as ChatPlatformError).code) {
    case 'GuildNotFound':
      return PlatformErrors.guildNotFound();
    case 'PermissionDenied':
      return PlatformErrors.botPermissionDenied();
    case 'NotFound':
    case 'DmBlocked':
    case 'InvalidRequest':
      return PlatformErrors.requestRefused();
    case 'PlatformUnavailable':
    case 'RateLimited':
      return PlatformErrors.unavailable();
  }
}

/**
 * docs/behaviour.md §4.1 rule 4 and §7: the live guild state could not be read for a preview (or the start
 * that recomputes it), answered 500 as the spec says. An outage says the platform is unavailable
 * and when to try again (`retry_after_seconds`, and `Retry-After` from PlatformOutageFilter); a
 * refusal (the bot removed, a permission missing) says so, since waiting does not fix it.
 */
export function guildStateUnavailable(code: ChatPlatformErrorCode): DomainError {
  if (code === 'PlatformUnavailable' || code === 'RateLimited') return PlatformErrors.guildStateUnavailable();
  return PlatformErrors.guildStateRefused(code);
}
