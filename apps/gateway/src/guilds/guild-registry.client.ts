import { Logger } from '@nestjs/common';
import { InternalHttp, type InternalTokenCodec } from '@lib/identity';
import { GuildAccessErrors } from '@lib/guild-access';

/** What recovery's registry says about one platform guild (`POST /internal/v1/guilds/lookup`). */
export interface RegistryLookup {
  platform_guild_id: string;
  guild_id: string | null;
  registered: boolean;
  bot_present: boolean;
}

/** How long the gateway waits for recovery's answer (it may ask the platform about each guild). */
export const REGISTRY_LOOKUP_TIMEOUT_MS = 15_000;

/** Recovery's guild registry, asked by the gateway as itself. */
export class GuildRegistryClient {
  private readonly logger = new Logger(GuildRegistryClient.name);
  private readonly http: InternalHttp;

  constructor(recoveryUrl: string, codec: InternalTokenCodec) {
    this.http = new InternalHttp(recoveryUrl, codec, 'recovery', REGISTRY_LOOKUP_TIMEOUT_MS);
  }

  async lookup(platformGuildIds: string[]): Promise<RegistryLookup[]> {
    if (platformGuildIds.length === 0) return [];
    try {
      const answer = await this.http.post<{ guilds: RegistryLookup[] }>('/internal/v1/guilds/lookup', {
        platform_guild_ids: platformGuildIds,
      });
      return answer.guilds;
    } catch (error) {
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'guild lookup failed',
      );
      throw GuildAccessErrors.recoveryUnavailable(
        'Which of your guilds are protected cannot be checked right now. Try again in a moment.',
      );
    }
  }
}
