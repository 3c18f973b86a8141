import { Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import { TtlCache } from '@lib/runtime';

/** A name is looked up once in this long per guild and user; a rename shows after it. */
const NAME_CACHE_MS = 10 * 60_000;
/** The answer goes out after this long whatever the platform does; late names come next time. */
const LOOKUP_BUDGET_MS = 2_000;

/** One platform user and the name the guild knows them by. */
export interface MemberName {
  platform_user_id: string;
  /** Nickname, display name or user name in the guild; null when the platform did not say (not a member, an outage). */
  name: string | null;
}

/**
 * The names a guild's members go by, for the dashboard (AntiNuke's exempt list, the audit log, the
 * subscription's payer): the member's nickname, display name or user name in that guild, asked of
 * the platform (the live mirror holds no members). A user who is not a member of the guild has no
 * name there, so this tells no more than the guild's own member list; an outage or a slow answer
 * leaves a name null this time and it is asked again next time.
 */
@Injectable()
export class GuildMemberNames {
  private readonly logger = new Logger(GuildMemberNames.name);
  private readonly names = new TtlCache<string | null>(NAME_CACHE_MS);

  constructor(private readonly platform: ChatPlatformClient) {}

  /** The users in the order given, each with their name in the guild (null when there is none). */
  async of(platformGuildId: string, userIds: string[]): Promise<MemberName[]> {
    const lookups = userIds.map((userId) =>
      this.names
        .get(`${platformGuildId}|${userId}`, () => this.lookUp(platformGuildId, userId))
        .catch((error: unknown) => {
          this.logger.warn({ platform_user_id: userId, err: String(error) }, 'member name not read');
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
