import { Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient, type GuildState } from '@lib/chat-platform';
import type { SnapshotTrigger } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { ConflictError } from '@lib/problem-details';
import { Counter, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { Guild } from '../guilds/guild.entity';
import { toUserFacingError } from '../platform/platform-errors';
import { RecoveryEvents } from '../recovery-events';
import { type GuildMembership, readGuildMembership } from './guild-membership';
import { SNAPSHOT_MAX_BYTES, serialiseSnapshot, SnapshotTooLargeError } from './snapshot-payload';
import { SnapshotsRepository } from './snapshots.repository';

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
  /** The state to keep instead of the platform's (an undo composed from the change journal). */
  composed?: { state: GuildState; membership: GuildMembership };
}

export interface CreatedSnapshot {
  id: string;
  size: number;
  created_at: string;
}

/**
 * The one creation routine every trigger converges on (docs/behaviour.md §1.1). Manual snapshots alone pass
 * the plan checks; the others are the system's own and never wait for a slot.
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
  ) {}

  async create(input: CreateSnapshotInput): Promise<CreatedSnapshot> {
    const { guild, trigger } = input;
    if (trigger === 'manual') await this.checkManualAllowed(guild);

    const { state, membership } = input.composed ?? (await this.read(guild));
    const createdAt = new Date();
    const { json, size, payload } = serialiseSnapshot(state, createdAt, membership);
    for (const { part, reason } of payload.omitted ?? []) {
      this.logger.warn({ guild_id: guild.id, trigger, part, reason }, 'snapshot taken without a part');
    }
    if (size > SNAPSHOT_MAX_BYTES) {
      snapshotsTooLarge.inc({ trigger });
      this.logger.error(
        { alert: 'snapshot_too_large', guild_id: guild.id, trigger, size, limit: SNAPSHOT_MAX_BYTES },
        'snapshot refused: payload over the size limit',
      );
      throw new SnapshotTooLargeError(size);
    }

    const id = uuidv7();
    await this.dataSource.transaction(async (manager) => {
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
   * docs/behaviour.md §4.6, §7, §8: the plan must include manual snapshots, no restore may be pending or
   * running, and a slot must be free. Two concurrent requests may both see the last free slot;
   * the spec accepts that race.
   */
  private async checkManualAllowed(guild: Guild): Promise<void> {
    const entitlements = await this.entitlements.requireFeature(guild.id, 'RECOVERY_SNAPSHOT_MANUAL');
    if (await this.snapshots.hasActiveRestore(guild.id)) {
      throw new ConflictError(
        'ErrRestoreInProgress',
        'A restore of this guild is running. Take the snapshot once it has finished.',
      );
    }
    const used = await this.snapshots.countManual(guild.id);
    const max = entitlements.limits.snapshot_manual_max;
    if (used >= max) {
      throw new ConflictError(
        'ErrPlanLimitExceeded',
        `All ${max} manual snapshot slot(s) of the ${entitlements.plan_code} plan are in use. Delete an existing manual snapshot first.`,
        { limit: max, used },
      );
    }
  }
}
