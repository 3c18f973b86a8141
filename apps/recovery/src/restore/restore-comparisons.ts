import { Injectable } from '@nestjs/common';
import {
  ChatPlatformClient,
  computeGuildPermissions,
  type GuildState,
  isChatPlatformError,
  INCOMING_WEBHOOK,
  type PlatformMember,
  WELCOME_SCREEN_ENABLED_FEATURE,
} from '@lib/chat-platform';
import type { RestoreScope } from '@lib/contracts';
import { readGuildMembership } from '../snapshots/guild-membership';
import { readSnapshotPayload, type SnapshotPayload } from '../snapshots/snapshot-payload';
import { storedImage } from '../snapshots/images/image-store';
import { SnapshotsRepository } from '../snapshots/snapshots.repository';
import { PlatformIdReplacementsRepository } from './platform-id-replacements.repository';
import {
  type BotStanding,
  type DiffInput,
  type IdReplacement,
  type LiveExpressions,
  type LiveWebhook,
  type MemberRoleUpdate,
  namesCustomEmojis,
  planRestore,
  type RestoreDiff,
  SnapshotIdResolution,
} from './restore-diff';
import { SnapshotErrors } from '../snapshots/snapshots.errors';
import { readWelcomeFlow } from '../snapshots/welcome-flow.reader';

/**
 * The scopes whose comparison reads the live emojis, stickers, AutoMod rules, or welcome screen and
 * onboarding (which name emojis); and `channels` when a forum names a custom emoji (it is written
 * with the emoji's live id).
 */
const EXPRESSION_SCOPES: readonly RestoreScope[] = ['emojis', 'stickers', 'automod', 'onboarding'];

/** A snapshot compared with the guild as it is now: what preview shows and every step re-reads. */
export interface RestoreComparison {
  /** The snapshot fitted to the live guild's limits (planRestore): what the steps restore. */
  target: SnapshotPayload;
  live: GuildState;
  /** The live emojis and stickers, read for their scopes. */
  expressions?: LiveExpressions;
  /** The live incoming webhooks, read for the `webhooks` scope. */
  webhooks?: LiveWebhook[];
  ids: SnapshotIdResolution;
  bot: BotStanding;
  diff: RestoreDiff;
  /** With the `member_roles` scope: each member's update (the steps compare that scope alone). */
  memberUpdates: MemberRoleUpdate[];
}

/**
 * Reads what a comparison needs: the snapshot payload (version checked), the live guild, the
 * bot's standing in it, and where recreated roles and channels live now.
 */
@Injectable()
export class RestoreComparisons {
  private botUserId: Promise<string> | undefined;
  /** Numbers the guild reads this process starts: what a comparison may share (readsFrom). */
  private readsStarted = 0;
  private readonly inFlight = new Map<string, GuildRead>();

  constructor(
    private readonly snapshots: SnapshotsRepository,
    private readonly replacementIds: PlatformIdReplacementsRepository,
    private readonly platform: ChatPlatformClient,
  ) {}

  async snapshotPayload(snapshotId: string, guildId: string): Promise<SnapshotPayload> {
    const row = await this.snapshots.payload(snapshotId, guildId);
    if (!row) throw SnapshotErrors.notFound();
    return readSnapshotPayload(row.payload);
  }

  /**
   * A mark for `compare`: reads of the guild started after it may be shared. A restore's steps that
   * start together (a phase) then read the guild once between them instead of once each, and none
   * is given a read begun before it started (which could miss what it made itself just before).
   */
  readsFrom(): number {
    return this.readsStarted;
  }

  /** Platform failures propagate as ChatPlatformError; callers decide what they mean. */
  async compare(
    guildId: string,
    platformGuildId: string,
    target: SnapshotPayload,
    scope: readonly RestoreScope[],
    sharedFrom?: number,
  ): Promise<RestoreComparison> {
    // Members and bans are read only for their scopes: a large guild's lists take many pages.
    const [[live, bot], membership, expressions, webhooks] = await Promise.all([
      this.readGuild(platformGuildId, sharedFrom),
      readGuildMembership(this.platform, platformGuildId, {
        members: scope.includes('member_roles'),
        bans: scope.includes('bans'),
      }),
      scope.some((part) => EXPRESSION_SCOPES.includes(part)) ||
      (scope.includes('channels') && namesCustomEmojis(target.channels))
        ? this.readExpressions(platformGuildId, scope.includes('automod'), scope.includes('onboarding'))
        : undefined,
      scope.includes('webhooks') ? this.readWebhooks(platformGuildId, target) : undefined,
    ]);
    // After the guild: a role or channel the read shows that a restore beside this comparison made
    // is recorded by now whenever anything was made from it (an overwrite naming the new role is
    // applied only once the role's replacement is recorded), so it is never taken for a stranger.
    const screen = expressions?.welcomeFlow?.welcomeScreen;
    if (screen) screen.enabled = live.guild.features.includes(WELCOME_SCREEN_ENABLED_FEATURE);
    const replacements = await this.recordedReplacements(guildId);
    const standing = botStanding(live, bot);
    const ids = new SnapshotIdResolution(live, replacements, expressions, webhooks);
    const input: DiffInput = {
      target,
      live,
      expressions,
      webhooks,
      scope,
      ids,
      bot: standing,
      ...membership,
    };
    return { live, expressions, webhooks, ids, bot: standing, ...planRestore(input) };
  }

  async recordReplacement(guildId: string, jobId: string, replacement: IdReplacement): Promise<void> {
    await this.replacementIds.record(guildId, jobId, replacement);
  }

  /** Where the guild's recreated roles and channels live now, as recorded. */
  recordedReplacements(guildId: string): Promise<IdReplacement[]> {
    return this.replacementIds.ofGuild(guildId);
  }

  /**
   * The live emojis and stickers; none when the bot may not read them (its restore of them is
   * skipped for the missing permissions, which the diff names).
   */
  private async readExpressions(
    platformGuildId: string,
    automod: boolean,
    onboarding: boolean,
  ): Promise<LiveExpressions | undefined> {
    try {
      const [emojis, stickers, automodRules, welcomeFlow] = await Promise.all([
        this.platform.listEmojis(platformGuildId),
        this.platform.listStickers(platformGuildId),
        automod ? this.platform.listAutoModRules(platformGuildId) : undefined,
        onboarding ? this.readWelcomeFlow(platformGuildId) : undefined,
      ]);
      return { emojis, stickers, ...(automodRules && { automodRules }), ...(welcomeFlow && { welcomeFlow }) };
    } catch (error) {
      if (isChatPlatformError(error) && error.code === 'PermissionDenied') return undefined;
      throw error;
    }
  }

  /**
   * The welcome screen and onboarding; none when the bot may not read them (the diff then skips
   * the scope). The welcome screen's `enabled` is a guild feature, set once the guild is read.
   */
  private async readWelcomeFlow(platformGuildId: string): Promise<LiveExpressions['welcomeFlow']> {
    const read = await readWelcomeFlow(this.platform, { id: platformGuildId, features: [] });
    if ('unreadable' in read) return undefined;
    return { welcomeScreen: read.welcome_screen, onboarding: read.onboarding };
  }

  /**
   * The live incoming webhooks with their avatars' digests: the snapshot's where it holds the same
   * avatar hash, else read from the CDN (an avatar a restore uploaded, or a raider's), which is
   * outside the bot's rate limits. None when the bot may not read them (Manage Webhooks).
   */
  private async readWebhooks(
    platformGuildId: string,
    target: SnapshotPayload,
  ): Promise<LiveWebhook[] | undefined> {
    let webhooks;
    try {
      webhooks = await this.platform.listWebhooks(platformGuildId);
    } catch (error) {
      if (isChatPlatformError(error) && error.code === 'PermissionDenied') return undefined;
      throw error;
    }
    const kept = new Map(
      (target.webhooks ?? []).flatMap((webhook) =>
        webhook.avatar && webhook.image ? [[webhook.avatar, webhook.image] as const] : [],
      ),
    );
    const live: LiveWebhook[] = [];
    for (const webhook of webhooks.filter((candidate) => candidate.type === INCOMING_WEBHOOK)) {
      const { avatar } = webhook;
      let image = avatar ? (kept.get(avatar) ?? null) : null;
      if (avatar && image === null) {
        image = await this.platform.readWebhookAvatar({ id: webhook.id, avatar }).then(
          (read) => storedImage(read).digest,
          (error: unknown) => {
            if (isChatPlatformError(error)) return null;
            throw error;
          },
        );
      }
      live.push({ ...webhook, image });
    }
    return live;
  }

  /** The guild and the bot's member; one in flight started after `sharedFrom` is joined. */
  private readGuild(platformGuildId: string, sharedFrom?: number): GuildRead['answer'] {
    const current = this.inFlight.get(platformGuildId);
    if (current && sharedFrom !== undefined && current.number > sharedFrom) return current.answer;
    const read: GuildRead = {
      number: ++this.readsStarted,
      answer: Promise.all([this.platform.getGuildState(platformGuildId), this.botMember(platformGuildId)]),
    };
    this.inFlight.set(platformGuildId, read);
    const settled = () => {
      if (this.inFlight.get(platformGuildId) === read) this.inFlight.delete(platformGuildId);
    };
    read.answer.then(settled, settled);
    return read.answer;
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

interface GuildRead {
  number: number;
  answer: Promise<[GuildState, PlatformMember]>;
}

function botStanding(live: GuildState, bot: { user: { id: string }; roles: string[] }): BotStanding {
  const held = new Set(bot.roles);
  const everyone = live.roles.find((role) => role.id === live.guild.id);
  return {
    isOwner: live.guild.owner_id === bot.user.id,
    userId: bot.user.id,
    roleIds: bot.roles,
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
