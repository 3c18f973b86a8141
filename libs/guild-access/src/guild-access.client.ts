import { Logger } from '@nestjs/common';
import type { GuildAccess } from '@lib/contracts';
import { InternalHttp, InternalHttpError, type InternalTokenCodec } from '@lib/identity';
import { DomainError } from '@lib/problem-details';
import { GuildAccessErrors } from './guild-access.errors';
import type { GuildAccessSource } from './guild-scope';

export interface GuildAccessClientOptions {
  /** Base URL of the recovery service, which owns the guild registry. */
  recoveryUrl: string;
  codec: InternalTokenCodec;
  /** Default ACCESS_CHECK_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * How long a service waits for recovery's MANAGE_GUILD answer. A cache miss reads the member from
 * the platform, whose bot-wide budget (50 requests/s) restores and previews share: at saturation the
 * 200-user load run saw such reads queue past 10 s. 30 s stays inside the gateway's 60 s, so the
 * user gets the answer rather than a 503 for a check that was only slow.
 */
export const ACCESS_CHECK_TIMEOUT_MS = 30_000;

interface ProblemBody {
  code?: unknown;
  title?: unknown;
  detail?: unknown;
}

/**
 * The GuildAccessSource of services other than recovery: asks recovery (which caches the answer
 * for 60 s) whether the user holds MANAGE_GUILD on the guild. Their `@RequireManageGuild` guards
 * call it, with our id of the user, which recovery records in its user directory.
 */
export class GuildAccessClient implements GuildAccessSource {
  private readonly logger = new Logger(GuildAccessClient.name);
  private readonly http: InternalHttp;

  constructor(options: GuildAccessClientOptions) {
    this.http = new InternalHttp(
      options.recoveryUrl,
      options.codec,
      'recovery',
      options.timeoutMs ?? ACCESS_CHECK_TIMEOUT_MS,
    );
  }

  async access(guildId: string, platformUserId: string, userId?: string): Promise<GuildAccess> {
    const path =
      `/internal/v1/guilds/${encodeURIComponent(guildId)}/access/${encodeURIComponent(platformUserId)}` +
      (userId ? `?user_id=${encodeURIComponent(userId)}` : '');
    try {
      return await this.http.get<GuildAccess>(path);
    } catch (error) {
      const response = error instanceof InternalHttpError ? error.response : undefined;
      const problem = (typeof response?.data === 'object' ? response.data : null) as ProblemBody | null;
      // Recovery's own problems (unknown guild, platform down) reach the user as recovery said them.
      if (response && typeof problem?.code === 'string' && response.status !== 500) {
        const { code, title, detail } = problem;
        throw new DomainError(
          { code, status: response.status, title: typeof title === 'string' ? title : 'Guild check failed' },
          typeof detail === 'string' ? detail : undefined,
        );
      }
      this.logger.warn({ path, status: response?.status, err: String(error) }, 'recovery did not answer');
      throw GuildAccessErrors.recoveryUnavailable(
        'Your permissions on this guild cannot be checked right now. Try again in a moment.',
      );
    }
  }
}
