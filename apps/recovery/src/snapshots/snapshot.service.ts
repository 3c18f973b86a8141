import { Injectable, Logger } from '@nestjs/common';
import {
  ChatPlatformClient,
  type GuildState,
  isChatPlatformError,
  type PlatformAutoModRule,
} from '@lib/chat-platform';
import type { SnapshotTrigger } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { Counter, Histogram } from 'prom-client';
import { DataSource, type EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { Guild } from '../guilds/guild.entity';
import { toUserFacingError } from '../platform/platform-errors';
import { RecoveryEvents } from '../recovery-events';
import { type GuildMembership, readGuildMembership } from './guild-membership';
import { KEPT_PER_GUILD, type LimitedTrigger, makeRoom } from './snapshot-limits';
import { type ReadExpressions, readGuildExpressions } from './images/guild-expressions.reader';
import { ImageStore, type StoredImage } from './images/image-store';
import { fitImageQuota } from './images/image-quota';
import {
  type ExpressionsPart,
  type OmittedPart,
  readSnapshotPayload,
  SNAPSHOT_MAX_BYTES,
  type SnapshotExpressions,
  type SnapshotPayload,
  serialiseSnapshot,
  snapshotImageDigests,
} from './snapshot-payload';
import { SnapshotErrors } from './snapshots.errors';
import { SnapshotsRepository } from './snapshots.repository';
import { readWelcomeFlow } from './welcome-flow.reader';

const snapshotsCreated = new Counter({
  name: 'snapshots_created_total',
  help: 'Snapshots stored, by trigger',
  labelNames: ['trigger'],
});
const snapshotsTooLarge = new Counter({
  name: 'snapshots_too_large_total',
  help: 'Snapshots refused for exceeding 5 MiB (operator alert)',
  labelNames: ['trigger'],
});
const snapshotSize = new Histogram({
  name: 'snapshot_payload_bytes',
  help: 'Serialised size of stored snapshots',
  buckets: [16e3, 64e3, 256e3, 1e6, 2.5e6, SNAPSHOT_MAX_BYTES],
});

export interface CreateSnapshotInput {
  guild: Guild;
  trigger: SnapshotTrigger;
  /** The requesting user; null for `scheduled` and `antinuke`. */
  createdByUser: string | null;
  createdByPlatformUserId?: string | null;
  description?: string | null;
  /**
   * The state to keep instead of the platform's (an undo composed from the change journal), with
   * its emojis, stickers and images, whose images an earlier snapshot of the guild holds.
   */
  composed?: { state: GuildState; membership: GuildMembership; expressions?: SnapshotExpressions };
}

export interface CreatedSnapshot {
  id: string;
  size: number;
  created_at: string;
}

/**
 * A manual snapshot's reservation older than this was left by a process that stopped mid-snapshot
 * and is taken over: far longer than reading a guild at the platform's rate limits takes.
 */
export const RESERVATION_STALE_MS = 15 * 60_000;

const snapshotsMadeRoomFor = new Counter({
  name: 'snapshots_deleted_for_room_total',
  help: 'Snapshots of the system’s own kinds deleted to keep a guild within its limit, by trigger',
  labelNames: ['trigger'],
});

/**
 * The one creation routine every trigger converges on (docs/behaviour.md §1.1). Manual snapshots alone pass
 * the plan checks, one at a time per guild, the slot held from the check to the insert; incident
 * and pre-restore snapshots are kept to KEPT_PER_GUILD per guild, the oldest unneeded making room.
 */
@Injectable()
export class SnapshotService {
  private readonly logger = new Logger(SnapshotService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly platform: ChatPlatformClient,
    private readonly entitlements: EntitlementsClient,
    private readonly snapshots: SnapshotsRepository,
    private readonly events: RecoveryEvents,
    private readonly images: ImageStore,
  ) {}

  async create(input: CreateSnapshotInput): Promise<CreatedSnapshot> {
    const { guild, trigger } = input;
    if (trigger !== 'manual') return this.take(input);
    // The slot is reserved and counted before the platform is read: a second request meanwhile is
    // refused at once rather than spending the bot's platform budget on a snapshot with no slot.
    const reservation = uuidv7();
    const staleBefore = new Date(Date.now() - RESERVATION_STALE_MS);
    if (!(await this.snapshots.reserveManual(guild.id, reservation, staleBefore)))
      throw SnapshotErrors.inProgress();
    try {
      await this.checkManualAllowed(guild);
      return await this.take(input, reservation);
    } finally {
      // Already given back when the snapshot was stored; this is for every other ending.
      await this.snapshots.releaseManual(guild.id, reservation).catch((error: unknown) => {
        this.logger.warn({ guild_id: guild.id, err: String(error) }, 'snapshot reservation not given back');
      });
    }
  }

  /** `reservation`: the manual snapshot's, given back with the insert (refused if no longer held). */
  private async take(input: CreateSnapshotInput, reservation?: string): Promise<CreatedSnapshot> {
    const { guild, trigger } = input;
    const limited = isLimited(trigger) ? trigger : null;
    if (limited) {
      // Nothing is read from the platform for a snapshot that could not be kept.
      await this.dataSource.transaction((manager) => this.makeRoom(manager, guild.id, limited, false));
    }

    const { state, membership } = input.composed ?? (await this.read(guild));
    const expressions = input.composed
      ? composedExpressions(input.composed.expressions)
      : await this.readExpressions(guild, state);
    const createdAt = new Date();
    const { json, size, payload } = serialiseSnapshot(state, createdAt, membership, expressions.part);
    for (const { part, reason } of payload.omitted ?? []) {
      this.logger.warn({ guild_id: guild.id, trigger, part, reason }, 'snapshot taken without a part');
    }
    if (size > SNAPSHOT_MAX_BYTES) {
      snapshotsTooLarge.inc({ trigger });
      this.logger.error(
        { alert: 'snapshot_too_large', guild_id: guild.id, trigger, size, limit: SNAPSHOT_MAX_BYTES },
        'snapshot refused: payload over the size limit',
      );
      throw SnapshotErrors.tooLarge(size, SNAPSHOT_MAX_BYTES);
    }

    const id = uuidv7();
    await this.dataSource.transaction(async (manager) => {
      if (limited) await this.makeRoom(manager, guild.id, limited, true);
      if (reservation && !(await this.snapshots.releaseManual(guild.id, reservation, manager))) {
        throw SnapshotErrors.inProgress();
      }
      const facts = {
        id,
        guildId: guild.id,
        trigger,
        createdByUser: input.createdByUser,
        createdByPlatformUserId: input.createdByPlatformUserId ?? null,
        size,
      };
      await this.snapshots.insert(manager, {
        ...facts,
        json,
        description: input.description ?? null,
        createdAt,
      });
      await this.images.keep(manager, { id, guildId: guild.id }, expressions.images);
      await this.events.snapshotCreated(manager, { ...facts, guildName: guild.name });
    });
    snapshotsCreated.inc({ trigger });
    snapshotSize.observe(size);
    return { id, size, created_at: createdAt.toISOString() };
  }

  private async read(guild: Guild): Promise<{ state: GuildState; membership: GuildMembership }> {
    const [state, membership] = await Promise.all([
      this.platform.getGuildState(guild.platformGuildId),
      readGuildMembership(this.platform, guild.platformGuildId, { members: true, bans: true }),
    ]).catch((error: unknown) => {
      throw toUserFacingError(error);
    });
    return { state, membership };
  }

  /**
   * The guild's emojis, stickers and images (its own and its roles' icons), as many new images as
   * the plan's quota has room for.
   * Images the guild's last snapshot holds are not read again.
   */
  private async readExpressions(guild: Guild, state: GuildState): Promise<ReadExpressionsPart> {
    const previous = await this.newestPayload(guild.id);
    const read = await readGuildExpressions(this.platform, state.guild, previous, state.roles).catch(
      (error: unknown) => {
        throw toUserFacingError(error);
      },
    );
    const automod = await this.readAutoModRules(guild);
    const welcome = await readWelcomeFlow(this.platform, state.guild).catch((error: unknown) => {
      throw toUserFacingError(error);
    });
    const welcomeOmitted: OmittedPart[] =
      'unreadable' in welcome ? [{ part: 'onboarding', reason: welcome.unreadable }] : [];
    const others = [...automod.omitted, ...welcomeOmitted];
    if (!('parts' in read)) {
      const omitted: OmittedPart[] = [{ part: 'expressions', reason: read.unreadable }, ...others];
      return { part: { omitted }, images: NO_IMAGES };
    }
    read.parts.automod_rules = automod.rules;
    if (!('unreadable' in welcome)) Object.assign(read.parts, welcome);
    if (read.fetched.length === 0) {
      return {
        part: { parts: read.parts, omitted: [...omittedImages(read), ...others] },
        images: { fetched: [], kept: read.kept },
      };
    }
    const limit = await this.entitlements.get(guild.id).then(
      (entitlements) => entitlements.limits.snapshot_image_bytes,
      // Without the plan, no new image is kept (those held already still are).
      () => 0,
    );
    const sizes = new Map(read.fetched.map((image) => [image.digest, image.bytes.length]));
    const usage = await this.images.guildUsage(guild.id, sizes);
    const fitted = usage.used + usage.added > limit ? fitImageQuota(read, usage.used, limit) : read;
    return {
      part: { parts: fitted.parts, omitted: [...omittedImages(fitted), ...others] },
      images: { fetched: fitted.fetched, kept: fitted.kept },
    };
  }

  /** The guild's AutoMod rules; none, and why, when the bot may not read them (Manage Server). */
  private async readAutoModRules(
    guild: Guild,
  ): Promise<{ rules?: PlatformAutoModRule[]; omitted: OmittedPart[] }> {
    try {
      return { rules: await this.platform.listAutoModRules(guild.platformGuildId), omitted: [] };
    } catch (error) {
      if (isChatPlatformError(error) && error.code === 'PermissionDenied') {
        return { omitted: [{ part: 'automod', reason: AUTOMOD_UNREADABLE }] };
      }
      throw toUserFacingError(error);
    }
  }

  /** The guild's newest snapshot's payload; null when it has none or it cannot be read. */
  private async newestPayload(guildId: string): Promise<SnapshotPayload | null> {
    const id = await this.snapshots.newestId(guildId);
    const row = id ? await this.snapshots.payload(id, guildId) : undefined;
    if (!row) return null;
    try {
      return readSnapshotPayload(row.payload);
    } catch {
      return null;
    }
  }

  /**
   * Throws when every kept snapshot of the kind is still needed; with `remove`, deletes the oldest
   * that nothing needs so that one more fits. Checked before the platform read and done in the
   * insert's transaction, under the guild and kind's lock (what others took meanwhile counts).
   */
  private async makeRoom(
    manager: EntityManager,
    guildId: string,
    trigger: LimitedTrigger,
    remove: boolean,
  ): Promise<void> {
    const kept = await this.snapshots.keptOfKind(manager, guildId, trigger, new Date());
    const { deleted, room } = makeRoom(kept, KEPT_PER_GUILD[trigger]);
    if (!room) throw SnapshotErrors.limitReached(trigger, KEPT_PER_GUILD[trigger]);
    if (!remove) return;
    const count = await this.snapshots.deleteToMakeRoom(manager, guildId, deleted);
    if (count > 0) {
      snapshotsMadeRoomFor.inc({ trigger }, count);
      this.logger.log({ guild_id: guildId, trigger, deleted }, 'oldest snapshots deleted to make room');
    }
  }

  /**
   * docs/behaviour.md §4.6, §7, §8: the plan must include manual snapshots, no restore may be pending or
   * running, and a slot must be free. Runs holding the guild's manual-snapshot reservation, so no
   * other request can take the slot between this count and the insert.
   */
  private async checkManualAllowed(guild: Guild): Promise<void> {
    const entitlements = await this.entitlements.requireFeature(guild.id, 'RECOVERY_SNAPSHOT_MANUAL');
    if (await this.snapshots.hasActiveRestore(guild.id)) {
      throw SnapshotErrors.restoreInProgress();
    }
    const used = await this.snapshots.countManual(guild.id);
    const max = entitlements.limits.snapshot_manual_max;
    if (used >= max) {
      throw SnapshotErrors.planLimitExceeded(
        `All ${max} manual snapshot slot(s) of the ${entitlements.plan_code} plan are in use. Delete an existing manual snapshot first.`,
        { limit: max, used },
      );
    }
  }
}

interface ReadExpressionsPart {
  part: ExpressionsPart;
  images: { fetched: StoredImage[]; kept: string[] };
}

const NO_IMAGES = { fetched: [], kept: [] };
export const AUTOMOD_UNREADABLE =
  'the bot may not read the AutoMod rules (it needs the Manage Server permission)';
const NO_EXPRESSIONS: ReadExpressionsPart = { part: { omitted: [] }, images: NO_IMAGES };

/** An undo's expressions: their images are the earlier snapshot's, referred to by digest. */
function composedExpressions(parts: SnapshotExpressions | undefined): ReadExpressionsPart {
  if (!parts) return NO_EXPRESSIONS;
  return { part: { parts, omitted: [] }, images: { fetched: [], kept: snapshotImageDigests(parts) } };
}

function omittedImages(read: ReadExpressions): OmittedPart[] {
  return [
    ...(read.imagesOmitted ? [{ part: 'images' as const, reason: read.imagesOmitted }] : []),
    ...(read.webhooksOmitted ? [{ part: 'webhooks' as const, reason: read.webhooksOmitted }] : []),
  ];
}

function isLimited(trigger: SnapshotTrigger): trigger is LimitedTrigger {
  return trigger in KEPT_PER_GUILD;
}
