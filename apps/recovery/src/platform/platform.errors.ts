import type { ChatPlatformErrorCode } from '@lib/chat-platform';
// Loaded in Temporal's workflow sandbox (recovery's workflow code names its failures by these
// problems): the relative path is one the workflow bundler resolves, and the file brings in no Nest.
// The type import above is erased before bundling.
import { defineProblem } from '../../../../libs/problem-details/src/definitions';

/** When to try a read of the guild again after the platform failed it (the client had retried already). */
export const GUILD_STATE_RETRY_AFTER_SECONDS = 30;

/** What a user sees when the chat platform fails a request made on their behalf. */
export const PlatformErrors = {
  guildNotFound: defineProblem({ code: 'ErrGuildNotFound', status: 404, title: 'Guild not found' }, () => ({
    detail: 'The chat platform does not know this guild, or the bot is no longer in it.',
  })),
  botPermissionDenied: defineProblem(
    { code: 'ErrBotPermissionDenied', status: 403, title: 'The bot lacks a permission' },
    () => ({
      detail: 'The bot is missing a permission it needs on this guild. Check its role and try again.',
    }),
  ),
  requestRefused: defineProblem(
    { code: 'ErrPlatformRequestRefused', status: 502, title: 'The chat platform refused the request' },
    () => ({ detail: 'The chat platform refused a request the service made. Try again later.' }),
  ),
  unavailable: defineProblem(
    { code: 'ErrPlatformUnavailable', status: 503, title: 'Cannot reach the chat platform' },
    () => ({ detail: 'Cannot fetch the current guild state from the chat platform. Try again later.' }),
  ),
  /**
   * docs/behaviour.md §4.1 rule 4 and §7: the live guild state could not be read for a preview (or
   * the start that recomputes it), answered 500 as the spec says. An outage says when to try again
   * (`retry_after_seconds`, and `Retry-After` from PlatformOutageFilter).
   */
  guildStateUnavailable: defineProblem(
    { code: 'ErrGuildStateUnavailable', status: 500, title: 'The chat platform is unavailable' },
    () => ({
      detail: `The guild's current state cannot be read because the chat platform is unavailable. Nothing was changed; try again in ${GUILD_STATE_RETRY_AFTER_SECONDS} seconds.`,
      extensions: { retry_after_seconds: GUILD_STATE_RETRY_AFTER_SECONDS },
    }),
  ),
  /** The same, for a refusal (the bot removed, a permission missing), since waiting does not fix it. */
  guildStateRefused: defineProblem(
    { code: 'ErrGuildStateUnavailable', status: 500, title: 'Cannot fetch the current guild state' },
    (code: ChatPlatformErrorCode) => ({
      detail: `The chat platform refused to show the guild's current state (${code}): check that the bot is still in the guild with its permissions, then preview again.`,
    }),
  ),
} as const;
