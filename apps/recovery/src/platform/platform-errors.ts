import { type ChatPlatformError, type ChatPlatformErrorCode, isChatPlatformError } from '@lib/chat-platform';
import { DomainError } from '@lib/problem-details';

/**
 * What a user sees when the chat platform fails a request made on their behalf. Anything that is
 * not a platform failure is rethrown unchanged.
 */
export function toUserFacingError(error: unknown): unknown {
  if (!isChatPlatformError(error)) return error;
  switch ((error as ChatPlatformError).code) {
    case 'GuildNotFound':
      return new DomainError(
        'ErrGuildNotFound',
        404,
        'Guild not found',
        'The chat platform does not know this guild, or the bot is no longer in it.',
      );
    case 'PermissionDenied':
      return new DomainError(
        'ErrBotPermissionDenied',
        403,
        'The bot lacks a permission',
        'The bot is missing a permission it needs on this guild. Check its role and try again.',
      );
    case 'NotFound':
    case 'DmBlocked':
    case 'InvalidRequest':
      return new DomainError(
        'ErrPlatformRequestRefused',
        502,
        'The chat platform refused the request',
        'The chat platform refused a request the service made. Try again later.',
      );
    case 'PlatformUnavailable':
    case 'RateLimited':
      return new DomainError(
        'ErrPlatformUnavailable',
        503,
        'Cannot reach the chat platform',
        'Cannot fetch the current guild state from the chat platform. Try again later.',
      );
  }
}

export const GUILD_STATE_UNAVAILABLE = 'ErrGuildStateUnavailable';

/** When to try a read of the guild again after the platform failed it (the client had retried already). */
export const GUILD_STATE_RETRY_AFTER_SECONDS = 30;

/**
 * docs/behaviour.md §4.1 rule 4 and §7: the live guild state could not be read for a preview (or the start
 * that recomputes it), answered 500 as the spec says. An outage says the platform is unavailable
 * and when to try again (`retry_after_seconds`, and `Retry-After` from PlatformOutageFilter); a
 * refusal (the bot removed, a permission missing) says so, since waiting does not fix it.
 */
export function guildStateUnavailable(code: ChatPlatformErrorCode): DomainError {
  if (code === 'PlatformUnavailable' || code === 'RateLimited') {
    return new DomainError(
      GUILD_STATE_UNAVAILABLE,
      500,
      'The chat platform is unavailable',
      `The guild's current state cannot be read because the chat platform is unavailable. Nothing was changed; try again in ${GUILD_STATE_RETRY_AFTER_SECONDS} seconds.`,
      { retry_after_seconds: GUILD_STATE_RETRY_AFTER_SECONDS },
    );
  }
  return new DomainError(
    GUILD_STATE_UNAVAILABLE,
    500,
    'Cannot fetch the current guild state',
    `The chat platform refused to show the guild's current state (${code}): check that the bot is still in the guild with its permissions, then preview again.`,
  );
}
