import { Injectable } from '@nestjs/common';
import { ChatPlatformClient, computeGuildPermissions, type GuildState } from '@lib/chat-platform';
import type { RestoreScope } from '@lib/contracts';
import { NotFoundError } from '@lib/problem-details';
import { readSnapshotPayload, type SnapshotPayload } from '../snapshots/snapshot-payload';
import { SnapshotsRepository } from '../snapshots/snapshots.repository';
import { PlatformIdReplacementsRepository } from './platform-id-replacements.repository';
import {
  type BotStanding,
  computeRestoreDiff,
  type IdReplacement,
  type RestoreDiff,
  SnapshotIdResolution,
} from './restore-diff';

/** A snapshot compared with the guild as it is now: what preview shows and every step re-reads. */
export interface RestoreComparison {
  target: SnapshotPayload;
  live: GuildState;
  ids: SnapshotIdResolution;
  bot: BotStanding;
  diff: RestoreDiff;
}

/**
 * Reads what a comparison needs: the snapshot payload (version checked), the live guild, the
 * bot's standing in it, and where recreated roles and channels live now.
 */
@Injectable()
export class RestoreComparisons {
  private botUserId: Promise<string> | undefined;

  constructor(
    private readonly snapshots: SnapshotsRepository,
    private readonly replacementIds: PlatformIdReplacementsRepository,
    private readonly platform: ChatPlatformClient,
  ) {}

  async snapshotPayload(snapshotId: string, guildId: string): Promise<SnapshotPayload> {
    const row = await this.snapshots.payload(snapshotId, guildId);
    if (!row) throw new NotFoundError('ErrSnapshotNotFound', 'Snapshot');
    return readSnapshotPayload(row.payload);
  }

  /** Platform failures propagate as ChatPlatformError; callers decide what they mean. */
  async compare(
    guildId: string,
    platformGuildId: string,
    target: SnapshotPayload,
    scope: readonly RestoreScope[],
  ): Promise<RestoreComparison> {
    const [live, bot] = await Promise.all([
      this.platform.getGuildState(platformGuildId),
      this.botMember(platformGuildId),
    ]);
    // After the guild: a role or channel the read shows that a restore beside this comparison made
    // is recorded by now whenever anything was made from it (an overwrite naming the new role is
    // applied only once the role's replacement is recorded), so it is never taken for a stranger.
    const replacements = await this.replacements(guildId);
    const standing = botStanding(live, bot);
    const ids = new SnapshotIdResolution(live, replacements);
    return {
      target,
      live,
      ids,
      bot: standing,
      diff: computeRestoreDiff({ target, live, scope, ids, bot: standing }),
    };
  }

  async recordReplacement(guildId: string, jobId: string, replacement: IdReplacement): Promise<void> {
    await this.replacementIds.record(guildId, jobId, replacement);
  }

  private replacements(guildId: string): Promise<IdReplacement[]> {
    return this.replacementIds.ofGuild(guildId);
  }

  private async botMember(platformGuildId: string) {
    this.botUserId ??= this.platform.getCurrentUser().then((user) => user.id);
    const botId = await this.botUserId.catch((error: unknown) => {
      this.botUserId = undefined;
      throw error;
    });
    return this.platform.getMember(platformGuildId, botId);
  }
}

function botStanding(live: GuildState, bot: { user: { id: string }; roles: string[] }): BotStanding {
  const held = new Set(bot.roles);
  const everyone = live.roles.find((role) => role.id === live.guild.id);
  return {
    isOwner: live.guild.owner_id === bot.user.id,
    highestRolePosition: Math.max(
      0,
      ...live.roles.filter((role) => held.has(role.id)).map((r) => r.position),
    ),
    permissions: computeGuildPermissions({
      ownerId: live.guild.owner_id,
      everyonePermissions: everyone?.permissions ?? '0',
      roles: live.roles,
      member: bot,
    }),
  };
}
