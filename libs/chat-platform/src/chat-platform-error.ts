export const CHAT_PLATFORM_ERROR_CODES = [
  'GuildNotFound',
  'PermissionDenied',
  'NotFound',
  'DmBlocked',
  'InvalidRequest',
  'PlatformUnavailable',
  'RateLimited',
] as const;

export type ChatPlatformErrorCode = (typeof CHAT_PLATFORM_ERROR_CODES)[number];

/** Only an outage is worth trying again; the platform answers the other failures the same way twice. */
const RETRYABLE: Record<ChatPlatformErrorCode, boolean> = {
  GuildNotFound: false,
  PermissionDenied: false,
  NotFound: false,
  DmBlocked: false,
  InvalidRequest: false,
  PlatformUnavailable: true,
  RateLimited: true,
};

export interface ChatPlatformErrorDetails {
  /** HTTP status of the platform's answer; null when there was none (network, timeout). */
  status: number | null;
  /** The platform's own JSON error code (10004 Unknown Guild, 50013 Missing Permissions, ...). */
  platform_code: number | null;
  method: string | null;
  path: string | null;
  /**
   * RateLimited: milliseconds to wait before the platform takes the request, and what kind of
   * limit (topics/rate-limits: `user`, `global` or `shared`).
   */
  retry_after_ms?: number;
  scope?: string;
}

/**
 * A chat-platform call that failed. The string `code` (also the error's `name`, which Temporal
 * uses as the failure type) and `retryable` are the contract across Temporal and Kafka, where
 * `instanceof` does not survive; use `isChatPlatformError` to recognise one.
 */
export class ChatPlatformError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: ChatPlatformErrorCode,
    message: string,
    readonly details: ChatPlatformErrorDetails = {
      status: null,
      platform_code: null,
      method: null,
      path: null,
    },
  ) {
    super(message);
    this.name = code;
    this.retryable = RETRYABLE[code];
  }

  toJSON(): { code: ChatPlatformErrorCode; message: string; retryable: boolean } & ChatPlatformErrorDetails {
    return { code: this.code, message: this.message, retryable: this.retryable, ...this.details };
  }
}

/** Recognises a chat-platform failure by its code, also after it was serialised and rebuilt. */
export function isChatPlatformError(
  error: unknown,
): error is { code: ChatPlatformErrorCode; message: string; retryable: boolean } {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (CHAT_PLATFORM_ERROR_CODES as readonly string[]).includes(code);
}
