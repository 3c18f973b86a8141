import 'reflect-metadata';
import '../test/support/test-env';
import { makeURLSearchParams, REST } from '@discordjs/rest';
import {
  ChatPlatformClient,
  type GuildState,
  type PlatformBan,
  type PlatformMember,
} from '@lib/chat-platform';
import { EntitlementsClient } from '@lib/entitlements';
import { FakeChatPlatform } from '@lib/sandbox';
import { Routes } from 'discord-api-types/v10';
import { v7 as uuidv7 } from 'uuid';
import { OutboxWriter } from '@lib/outbox';
import { Guild } from '../apps/recovery/src/guilds/guild.entity';
import { RecoveryEvents } from '../apps/recovery/src/recovery-events';
import { serialiseSnapshot } from '../apps/recovery/src/snapshots/snapshot-payload';
import { SnapshotService } from '../apps/recovery/src/snapshots/snapshot.service';
import { PostgresImageStore } from '../apps/recovery/src/snapshots/images/postgres-image-store.repository';
import { SnapshotsRepository } from '../apps/recovery/src/snapshots/snapshots.repository';
import { openDataSource } from '../test/support/database';
import migrateTestDatabase from '../test/support/global-setup';
import { generatedGuild } from './generated-guild';
import { testTokenCodec } from '../test/support/internal-tokens';
import { percentile } from './percentile';

/**
 * `npm run bench:snapshot`: one guild at the platform's maxima (250 roles, 500 channels, overrides
 * on every channel) snapshotted through the real SnapshotService against the fake platform on
 * loopback. The run is split into what the platform's reads cost (the
 * HTTP calls through @discordjs/rest, as a bare REST client makes them) and our own work: mapping
 * the wire format, serialising, and the insert with its outbox row.
 */
const ROUNDS = 50;
const WARM_UP = 3;
const CATEGORIES = 25;
const CHANNELS_PER_CATEGORY = 19; // 25 + 25 * 19 = 500 channels
const CUSTOM_ROLES = 248; // + @everyone + the bot's managed role = 250
const MEMBERS = 20;

/**
 * The adapter as the service uses it, remembering how long its reads took: the guild's state, its
 * members and its bans, read side by side, from the first call to the last answer.
 */
class TimedPlatformClient extends ChatPlatformClient {
  private readStarted = 0;
  private readEnded = 0;
  lastState: GuildState | undefined;
  lastMembers: PlatformMember[] = [];
  lastBans: PlatformBan[] = [];

  get lastReadMs(): number {
    return this.readEnded - this.readStarted;
  }

  override async getGuildState(guildId: string): Promise<GuildState> {
    this.readStarted = performance.now();
    this.lastState = await super.getGuildState(guildId);
    this.readEnded = Math.max(this.readEnded, performance.now());
    return this.lastState;
  }

  override async listMembers(guildId: string): Promise<PlatformMember[]> {
    this.lastMembers = await super.listMembers(guildId);
    this.readEnded = Math.max(this.readEnded, performance.now());
    return this.lastMembers;
  }

  override async listBans(guildId: string): Promise<PlatformBan[]> {
    this.lastBans = await super.listBans(guildId);
    this.readEnded = Math.max(this.readEnded, performance.now());
    return this.lastBans;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The guild's shape: custom roles, categories and channels per category, members. */
export interface SnapshotGuildShape {
  customRoles: number;
  categories: number;
  channelsPerCategory: number;
  members: number;
}

export interface SnapshotMeasure {
  roles: number;
  channels: number;
  overrides: number;
  payloadBytes: number;
  /** SnapshotService.create, all rounds. */
  snapshotMs: number[];
  platformReads: number;
  mapping: number;
  serialising: number;
  storing: number;
}

/** At the platform's maxima: 250 roles, 500 channels. */
export const SNAPSHOT_MAXIMA: SnapshotGuildShape = {
  customRoles: CUSTOM_ROLES,
  categories: CATEGORIES,
  channelsPerCategory: CHANNELS_PER_CATEGORY,
  members: MEMBERS,
};

/**
 * Snapshots one guild of `shape` `rounds` times (after the warm-up) on the database of
 * DATABASE_URL, which must be migrated; the guild and its rows are deleted afterwards.
 */
export async function measureSnapshot(shape: SnapshotGuildShape, rounds = ROUNDS): Promise<SnapshotMeasure> {
  // The bench reads each route three times a round (bare, adapter, service); the platform's
  // per-route buckets would turn that into 429 waits a real snapshot never sees, so they are off.
  const platform = new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } });
  const { url } = await platform.start();
  const dataSource = await openDataSource();
  const guildId = uuidv7();
  try {
    const seeded = platform.seedGuild(
      generatedGuild({
        name: 'Maximal guild',
        customRoles: shape.customRoles,
        categories: shape.categories,
        channelsPerCategory: shape.channelsPerCategory,
        members: shape.members,
        topicLength: 120,
      }),
    );
    const live = platform.guild(seeded.guildId);
    const overrides = live.channels.reduce((sum, channel) => sum + channel.permission_overwrites.length, 0);

    await dataSource.query(
      `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
       VALUES ($1, $2, $3, $4, now())`,
      [guildId, seeded.guildId, live.name, seeded.ownerId],
    );
    const guild = Object.assign(new Guild(), {
      id: guildId,
      platformGuildId: seeded.guildId,
      name: live.name,
    });
    const client = new TimedPlatformClient({ apiBaseUrl: `${url}/api`, botToken: 'fake-bot-token' });
    const service = new SnapshotService(
      dataSource,
      client,
      // Never called: only manual snapshots, and snapshots with images to keep, consult the plan.
      new EntitlementsClient({
        licensingUrl: 'http://127.0.0.1:9',
        codec: testTokenCodec('recovery'),
      }),
      new SnapshotsRepository(dataSource),
      new RecoveryEvents(new OutboxWriter('recovery', 'recovery')),
      new PostgresImageStore(dataSource),
    );
    const bare = new REST({ version: '10', api: `${url}/api` }).setToken('fake-bot-token');

    const reads: number[] = [];
    const stateReads: number[] = [];
    const afterRead: number[] = [];
    const serialise: number[] = [];
    const snapshot: number[] = [];
    let size = 0;
    for (let round = 0; round < WARM_UP + rounds; round++) {
      let t = performance.now();
      const page = makeURLSearchParams({ limit: 1000 });
      await Promise.all([
        bare.get(Routes.guild(seeded.guildId)),
        bare.get(Routes.guildChannels(seeded.guildId)),
        bare.get(Routes.guildMembers(seeded.guildId), { query: page }),
        bare.get(Routes.guildBans(seeded.guildId), { query: page }),
      ]);
      const readMs = performance.now() - t;

      t = performance.now();
      await service.create({ guild, trigger: 'scheduled', createdByUser: null });
      const snapshotMs = performance.now() - t;
      const stateMs = client.lastReadMs;

      t = performance.now();
      size = serialiseSnapshot(client.lastState!, new Date(), {
        members: client.lastMembers,
        bans: client.lastBans,
      }).size;
      const serialiseMs = performance.now() - t;

      // The client holds itself to the platform's global 50 requests/s, as does @discordjs/rest the
      // bare one; a round makes 8 calls (4 bare, 4 for the snapshot), and the pause keeps the rounds
      // under that limit, so the figures are the work and not that queue.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (round < WARM_UP) continue;
      reads.push(readMs);
      stateReads.push(stateMs);
      afterRead.push(snapshotMs - stateMs);
      serialise.push(serialiseMs);
      snapshot.push(snapshotMs);
    }

    return {
      roles: live.roles.length,
      channels: live.channels.length,
      overrides,
      payloadBytes: size,
      snapshotMs: snapshot,
      platformReads: median(reads),
      mapping: Math.max(0, median(stateReads) - median(reads)),
      serialising: median(serialise),
      storing: Math.max(0, median(afterRead) - median(serialise)),
    };
  } finally {
    await dataSource.query(`DELETE FROM recovery.outbox WHERE message_key = $1`, [guildId]);
    await dataSource.query(`DELETE FROM recovery.snapshots WHERE guild_id = $1`, [guildId]);
    await dataSource.query(`DELETE FROM recovery.guilds WHERE id = $1`, [guildId]);
    await dataSource.destroy();
    await platform.stop();
  }
}

async function main(): Promise<void> {
  migrateTestDatabase();
  const measure = await measureSnapshot(SNAPSHOT_MAXIMA);
  const snapshot = measure.snapshotMs;
  const total = median(snapshot);
  const platformReads = measure.platformReads;
  const mapping = measure.mapping;
  const serialising = measure.serialising;
  const storing = measure.storing;
  const ours = mapping + serialising + storing;
  const row = (label: string, ms: number) =>
    console.log(
      `  ${label.padEnd(46)} ${ms.toFixed(1).padStart(6)} ms ${((ms / total) * 100).toFixed(0).padStart(4)} %`,
    );

  console.log(
    `snapshot of a guild at the platform's maxima: ${measure.roles} roles, ${measure.channels} channels, ` +
      `${measure.overrides} overrides; payload ${(measure.payloadBytes / 1024).toFixed(0)} KiB; ${ROUNDS} rounds after ${WARM_UP} warm-up`,
  );
  console.log(
    `  whole snapshot (SnapshotService.create)      p50 ${total.toFixed(1)} ms, p99 ${percentile(snapshot, 99).toFixed(1)} ms`,
  );
  row('platform reads (4 REST calls, loopback)', platformReads);
  row('our work: mapping the wire format', mapping);
  row('our work: serialising + size check', serialising);
  row('our work: insert + outbox row (one transaction)', storing);
  row('our own work in all', ours);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
