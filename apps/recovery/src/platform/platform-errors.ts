import { type ChatPlatformError, isChatPlatformError } from '@lib/chat-platform';
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
      return new DomainError(
        'ErrPlatformUnavailable',
        503,
        'Cannot reach the chat platform',
        'Cannot fetch the current guild state from the chat platform. Try again later.',
      );
  }
}
