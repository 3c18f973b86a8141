import { type ArgumentsHost, Catch } from '@nestjs/common';
import { DomainError, ProblemDetailsFilter } from '@lib/problem-details';
import type { Response } from 'express';
import { guildStateUnavailable } from './platform-errors';
import { GUILD_STATE_RETRY_AFTER_SECONDS, PlatformErrors } from './platform.errors';

/**
 * For routes that read the live guild (preview, start): a chat-platform outage is the spec's 500
 * "cannot fetch current guild state, retry later" (§4.1 rule 4, §7), whichever read met it first,
 * the guild's state or the caller's MANAGE_GUILD check, with `Retry-After`. Everything else is
 * answered as everywhere.
 */
@Catch()
export class PlatformOutageFilter extends ProblemDetailsFilter {
  override catch(error: unknown, host: ArgumentsHost): void {
    const outage =
      error instanceof DomainError && PlatformErrors.unavailable.is(error)
        ? guildStateUnavailable('PlatformUnavailable')
        : error;
    if (
      outage instanceof DomainError &&
      PlatformErrors.guildStateUnavailable.is(outage) &&
      outage.extensions.retry_after_seconds !== undefined &&
      host.getType() === 'http'
    ) {
      host
        .switchToHttp()
        .getResponse<Response>()
        .setHeader('retry-after', String(GUILD_STATE_RETRY_AFTER_SECONDS));
    }
    super.catch(outage, host);
  }
}
