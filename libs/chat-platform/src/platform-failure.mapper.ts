import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { ChatPlatformError, type ChatPlatformErrorCode } from './chat-platform-error';

const UNKNOWN_GUILD = 10004;
const CANNOT_MESSAGE_USER = 50007;
const MISSING_PERMISSIONS = 50013;

/** Socket-level failures: the platform (or the way to it) is down, not the request wrong. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function codeForApiError(status: number, platformCode: number | null): ChatPlatformErrorCode {
  if (platformCode === CANNOT_MESSAGE_USER) return 'DmBlocked';
  if (platformCode === UNKNOWN_GUILD) return 'GuildNotFound';
  if (status === 403 || platformCode === MISSING_PERMISSIONS) return 'PermissionDenied';
  if (status === 404) return 'NotFound';
  // A 429 only surfaces if the client was told to reject instead of waiting; it passes.
  if (status === 429 || status >= 500) return 'PlatformUnavailable';
  return 'InvalidRequest';
}

/**
 * undici errors carry `code`, fetch wraps them in `cause`, and a timeout is an AbortError (a
 * DOMException, which is not always `instanceof Error`), so this reads fields only.
 */
function isNetworkFailure(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    depth++
  ) {
    const { name, code, cause } = current as { name?: unknown; code?: unknown; cause?: unknown };
    if (name === 'AbortError' || name === 'TimeoutError') return true;
    if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || code.startsWith('UND_ERR_')))
      return true;
    current = cause;
  }
  return false;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * Turns what the REST client throws into a ChatPlatformError. The client has already waited out
 * rate limits and retried 5xx answers and timeouts by then. Anything else (a bug, not a platform
 * failure) is returned unchanged.
 */
export function toChatPlatformFailure(error: unknown): unknown {
  if (error instanceof RateLimitError) {
    // A wait longer than the client waits out (ChatPlatformClientOptions.longestRateLimitWaitMs):
    // the caller decides what to do meanwhile.
    const path = pathOf(error.url);
    const seconds = Math.ceil(error.retryAfter / 1000);
    return new ChatPlatformError(
      'RateLimited',
      `${error.method.toUpperCase()} ${path} is rate limited for ${seconds} s (${error.scope})`,
      {
        status: 429,
        platform_code: null,
        method: error.method.toUpperCase(),
        path,
        retry_after_ms: error.retryAfter,
        scope: error.scope,
      },
    );
  }
  if (error instanceof DiscordAPIError) {
    const platformCode = typeof error.code === 'number' ? error.code : null;
    const path = pathOf(error.url);
    return new ChatPlatformError(
      codeForApiError(error.status, platformCode),
      `${error.method.toUpperCase()} ${path} answered ${error.status}: ${error.message}`,
      { status: error.status, platform_code: platformCode, method: error.method.toUpperCase(), path },
    );
  }
  if (error instanceof HTTPError) {
    const path = pathOf(error.url);
    return new ChatPlatformError(
      'PlatformUnavailable',
      `${error.method.toUpperCase()} ${path} answered ${error.status} after retries`,
      { status: error.status, platform_code: null, method: error.method.toUpperCase(), path },
    );
  }
  if (isNetworkFailure(error)) {
    const reason = (error as { message?: unknown }).message;
    return new ChatPlatformError('PlatformUnavailable', `chat platform unreachable: ${String(reason)}`);
  }
  return error;
}
