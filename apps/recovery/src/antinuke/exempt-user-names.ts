import { Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import { TtlCache } from '@lib/runtime';
import type { ExemptUserView } from './antinuke.dto';

/** A name is looked up once in this long per guild and user; a rename shows after it. */
const NAME_CACHE_MS = 10 * 60_000;
/** The setting is shown after this long whatever the platform does; late names come next time. */
const LOOKUP_BUDGET_MS = 2_000;

/**
 * The names of a guild's exempt users, for the dashboard: the member's nickname, display name or
 * user name, asked of the platform (the live mirror holds no members). A user who is not a member
 * has no name; an outage or a slow answer leaves it null this time and is asked again next time.
 */
@Injectable()
export class ExemptUserNames {
  private readonly logger = new Logger(ExemptUserNames.name);
  private readonly names = new TtlCache<string | null>(NAME_CACHE_MS);

  constructor(private readonly platform: ChatPlatformClient) {}

  async of(platformGuildId: string, userIds: string[]): Promise<ExemptUserView[]> {
    const lookups = userIds.map((userId) =>
      this.names
        .get(`${platformGuildId}|${userId}`, () => this.lookUp(platformGuildId, userId))
        .catch((error: unknown) => {
          this.logger.warn({ platform_user_id: userId, err: String(error) }, 'exempt user name not read');
          return null;
        }),
    );
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), LOOKUP_BUDGET_MS);
    });
    try {
      const names = await Promise.all(lookups.map((lookup) => Promise.race([lookup, budget])));
      return userIds.map((userId, index) => ({ platform_user_id: userId, name: names[index] }));
    } finally {
      clearTimeout(timer);
    }
  }

  private async lookUp(platformGuildId: string, userId: string): Promise<string | null> {
    try {
      const member = await this.platform.getMember(platformGuildId, userId);
      return member.nick ?? member.user.global_name ?? member.user.username;
    } catch (error) {
      if (isChatPlatformError(error) && !error.retryable) return null;
      throw error;
    }
  }
}
