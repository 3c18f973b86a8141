import 'reflect-metadata';
import '../test/support/test-env';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import type { Entitlements, RestoreScope } from '@lib/contracts';
import type { EntitlementsClient } from '@lib/entitlements';
import {
  DEFAULT_RATE_LIMITS,
  FakeChatPlatform,
  type RateLimitSettings,
  type RateLimitWindow,
  type GuildSpec,
  type RequestRecord,
  type SeededGuild,
} from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { recoveryDatabase } from '../apps/recovery/src/database';
import { GuildAccessService } from '../apps/recovery/src/guilds/guild-access.service';
import { GuildRegistry } from '../apps/recovery/src/guilds/guild-registry.service';
import { createRestoreActivities } from '../apps/recovery/src/restore/activities/restore.activities';
import { RestoreComparisons } from '../apps/recovery/src/restore/restore-comparisons';
import { changesPerStep, type RestoreDiff } from '../apps/recovery/src/restore/restore-diff';
import { RestoreJobsRepository } from '../apps/recovery/src/restore/restore-jobs.repository';
import { RestoreSteps } from '../apps/recovery/src/restore/steps';
import {
  CHANGE_STEPS,
  type ChangeStep,
  OVERLAPPED_PHASES,
  type RestoreActivities,
  STEP_ACTIVITY,
} from '../apps/recovery/src/restore/workflows/restore-contract';
import { runRestore } from '../apps/recovery/src/restore/workflows/restore-procedure';
import { RestoreProgress } from '../apps/recovery/src/restore/workflows/restore-progress';
import { SnapshotService } from '../apps/recovery/src/snapshots/snapshot.service';
import { PostgresImageStore } from '../apps/recovery/src/snapshots/images/postgres-image-store.repository';
import { LiveSyncControl } from '../apps/recovery/src/sync/live-sync-control.repository';
import migrateTestDatabase from '../test/support/global-setup';
import { uniquePng } from '../test/support/expression-raid';
import { generatedGuild } from './generated-guild';
import { OutboxWriter } from '@lib/outbox';
import { GuildsRepository } from '../apps/recovery/src/guilds/guilds.repository';
import { RecoveryEvents } from '../apps/recovery/src/recovery-events';
import { PlatformIdReplacementsRepository } from '../apps/recovery/src/restore/platform-id-replacements.repository';
import { SnapshotsRepository } from '../apps/recovery/src/snapshots/snapshots.repository';

/**
 * `npm run bench:restore`: two large guilds (CASES: the bench guild, and one at the platform's
 * maxima), a guild whose restore needs more roles than a (shortened) role creation quota allows,
 * and the member case; each with 2-4 overwrites on every channel, snapshotted, raided through the platform's
 * REST API, and restored in-process by the real restore procedure (`runRestore` over
 * `createRestoreActivities`, steps overlapped as both engines run them, no Temporal) against the
 * fake platform with its per-route and global rate limits on. The wall time is set next to the
 * floor those limits allow for the calls the restore made, and next to a fixed 250 ms pacing
 * between calls (what popular open-source backup bots do).
 *
 * The floor is computed from the fake's request log of the restore (429 answers left out: they
 * are wasted attempts, not calls the restore needs). Each bucket (method + route template + major
 * parameter, as the fake keys them) passes `limit` requests per window, the first window at once:
 * `ceil(count / limit - 1)` windows of waiting. The global limit likewise over all requests. The
 * buckets and the global limit run in parallel, so the floor is the larger of the busiest bucket's
 * wait and the global wait. It counts the re-reads each step call makes (GET guild, channels, bot
 * member), which a restore that kept the guild current from its answers would not need.
 */
export interface BenchGuild {
  label: string;
  /** Besides @everyone and the bot's managed role. */
  customRoles: number;
  categories: number;
  channelsPerCategory: number;
  members: number;
  /**
   * The member case: each member holds this many roles, the raid deletes every custom role (so
   * nobody holds one any more), and the restore recreates them and gives every member theirs back.
   */
  rolesPerMember?: number;
  /**
   * The quota case: the platform's role creation quota (about 250 per 48 hours) shortened to this,
   * smaller than the roles the restore makes, so it has to wait for the quota (and say so) rather
   * than fail; the floor counts the quota's windows. The platform client waits out no more than a
   * second itself, as recovery does with PLATFORM_LONGEST_RATE_LIMIT_WAIT_MS shortened.
   */
  roleQuota?: RateLimitWindow;
  /**
   * The expressions case: the guild (at boost level 3) has this many custom emojis, each kept to a
   * role, and stickers, each with an image of its own; the raid deletes them all besides its usual
   * damage, and the restore (with the `emojis` and `stickers` scopes) uploads them again from the
   * snapshot's images.
   */
  expressions?: { emojis: number; stickers: number };
}

/**
 * The bench guild, and one at the platform's maxima: 250 roles (248 custom, @everyone and the
 * bot's role) and 500 channels (50 categories of 9), overwrites on every channel; the raid
 * destroys half of each either way.
 */
export const CASES: BenchGuild[] = [
  { label: 'bench guild', customRoles: 100, categories: 20, channelsPerCategory: 9, members: 20 },
  { label: "platform's maxima", customRoles: 248, categories: 50, channelsPerCategory: 9, members: 50 },
  {
    label: 'role quota',
    customRoles: 100,
    categories: 4,
    channelsPerCategory: 5,
    members: 20,
    roleQuota: { limit: 20, windowMs: 5_000 },
  },
  {
    label: 'emojis and stickers',
    customRoles: 30,
    categories: 2,
    channelsPerCategory: 5,
    members: 20,
    expressions: { emojis: 100, stickers: 30 },
  },
  {
    label: 'members',
    customRoles: 30,
    categories: 2,
    channelsPerCategory: 5,
    members: 5_000,
    rolesPerMember: 3,
  },
];
/**
 * The member case's limits: the member-update bucket raised to the global limit (the fake's default
 * of 10 a second would make 5,000 updates take over 8 minutes); the ratio to the floor is the
 * figure, and the floor is computed with these limits.
 */
const MEMBER_RATE_LIMITS: RateLimitSettings = {
  ...DEFAULT_RATE_LIMITS,
  perRoute: { limit: 50, windowMs: 1_000 },
};
/** The plan's image quota, as licensing gives an ENTERPRISE guild. */
const ENTERPRISE_IMAGES = { limits: { snapshot_image_bytes: 1024 ** 3 } } as Entitlements;
const RAIDER_ROLES = 10;
const SPAM_CHANNELS = 20;
const PACING_MS = 250;
/** BENCH_VERBOSE=1: each step call as it ends (what it was told it awaits, what it did). */
const VERBOSE = process.env.BENCH_VERBOSE === '1';
let RATE_LIMITS: RateLimitSettings = DEFAULT_RATE_LIMITS;
const SCOPE: RestoreScope[] = ['roles', 'channels', 'permission_overrides', 'guild_settings'];
const MEMBER_SCOPE: RestoreScope[] = [...SCOPE, 'member_roles'];
const EXPRESSION_SCOPE: RestoreScope[] = [...SCOPE, 'emojis', 'stickers'];

/** The guild's spec with the expressions case's emojis (kept to roles) and stickers. */
function withExpressions(spec: GuildSpec, expressions: { emojis: number; stickers: number }): GuildSpec {
  return {
    ...spec,
    premium_tier: 3,
    emojis: Array.from({ length: expressions.emojis }, (_, i) => ({
      name: `emoji_${i}`,
      roles: [`role-${i % 30}`],
      image: { bytes: uniquePng(8_000), contentType: 'image/png' },
    })),
    stickers: Array.from({ length: expressions.stickers }, (_, i) => ({
      name: `sticker_${i}`,
      description: `Sticker ${i}`,
      image: { bytes: uniquePng(30_000), contentType: 'image/png' },
    })),
  };
}

/** The expressions case's raid, besides the usual: every emoji and sticker deleted. */
async function raidExpressions(raider: ChatPlatformClient, seeded: SeededGuild): Promise<void> {
  const [emojis, stickers] = await Promise.all([
    raider.listEmojis(seeded.guildId),
    raider.listStickers(seeded.guildId),
  ]);
  await Promise.all([
    ...emojis.map((emoji) => goneIsDone(raider.deleteEmoji(seeded.guildId, emoji.id))),
    ...stickers.map((sticker) => goneIsDone(raider.deleteSticker(seeded.guildId, sticker.id))),
  ]);
}

/** The member case's raid: every custom role deleted, so every member loses all theirs. */
async function raidMembers(raider: ChatPlatformClient, seeded: SeededGuild, size: BenchGuild): Promise<void> {
  const deletes: Promise<unknown>[] = [];
  for (let i = 0; i < size.customRoles; i++) {
    deletes.push(raider.deleteRole(seeded.guildId, seeded.roles[`role-${i}`]));
  }
  await Promise.all(deletes);
}

/**
 * A raid's delete that finds the item gone: an attempt the client timed out on a loaded machine
 * and retried, the first one having been applied. The raid is set-up, so it goes on.
 */
async function goneIsDone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(isChatPlatformError(error) && error.code === 'NotFound')) throw error;
  }
}

/**
 * What a raid does, through the REST API as a compromised admin would (with the bot's token):
 * half the roles and half the channels (ten categories among them) deleted, some of the rest
 * renamed or recoloured, overrides changed, spam roles and channels added, settings changed.
 */
async function raid(raider: ChatPlatformClient, seeded: SeededGuild, size: BenchGuild): Promise<void> {
  const guild = seeded.guildId;
  const steps: Promise<unknown>[] = [];
  for (let i = 0; i < size.customRoles; i++) {
    const role = seeded.roles[`role-${i}`];
    if (i % 2 === 0) steps.push(goneIsDone(raider.deleteRole(guild, role)));
    else if (i % 4 === 1) steps.push(raider.updateRole(guild, role, { name: `pwned-${i}`, color: 0 }));
  }
  for (let c = 0; c < size.categories; c++) {
    if (c % 2 === 0) steps.push(goneIsDone(raider.deleteChannel(seeded.channels[`category-${c}`])));
    for (let n = 0; n < size.channelsPerCategory; n++) {
      const k = c * size.channelsPerCategory + n;
      const channel = seeded.channels[`channel-${c}-${n}`];
      if (k % 2 === 1) {
        steps.push(goneIsDone(raider.deleteChannel(channel)));
      } else if (k % 8 === 0) {
        steps.push(raider.updateChannel(channel, { name: `raided-${k}`, topic: 'gg' }));
      } else if (k % 8 === 2) {
        // Opens the channel to everyone (replaces the @everyone override) and drops the member's.
        steps.push(
          raider.putPermissionOverride({
            channel_id: channel,
            id: guild,
            type: 'role',
            allow: String(P.SendMessages | P.MentionEveryone),
            deny: '0',
          }),
        );
        if (k % 3 !== 0) {
          steps.push(raider.deletePermissionOverride(channel, seeded.members[`member-${k % size.members}`]));
        }
      } else if (k % 8 === 4) {
        steps.push(
          raider.putPermissionOverride({
            channel_id: channel,
            id: seeded.members['member-0'],
            type: 'member',
            allow: String(P.ManageChannels),
            deny: '0',
          }),
        );
      }
    }
  }
  await Promise.all(steps);
  for (let i = 0; i < RAIDER_ROLES; i++) {
    await raider.createRole(guild, { name: `raider-${i}`, permissions: String(P.Administrator) });
  }
  let spam = '';
  for (let i = 0; i < SPAM_CHANNELS; i++) {
    spam = (await raider.createChannel(guild, { name: `spam-${i}`, type: 0 })).id;
  }
  await raider.updateGuildSettings(guild, {
    name: 'RAIDED',
    verification_level: 0,
    afk_timeout: 60,
    system_channel_id: spam,
  });
}

function describeLimit(setting: RateLimitSettings['perRoute']): string {
  return setting === 'off' ? 'off' : `${setting.limit} per ${setting.windowMs} ms`;
}

/** The fake's bucket key (see libs/sandbox/src/chat-platform/router.ts): method + template + major parameter. */
const MAJOR_PARAMETERS = ['guild_id', 'channel_id', 'webhook_id'];
function bucketKey(request: RequestRecord): string {
  const template = request.route ?? request.path;
  const names = template.split('/');
  const values = request.path.split('/');
  let major = 'global';
  for (let i = 0; i < names.length; i++) {
    if (names[i].startsWith(':') && MAJOR_PARAMETERS.includes(names[i].slice(1))) {
      major = values[i];
      break;
    }
  }
  return `${request.method} ${template} ${major}`;
}

interface Floor {
  calls: number;
  busiest: { key: string; count: number; ms: number };
  globalMs: number;
  floorMs: number;
}

/** Windows a fixed-window limit makes `count` requests wait, the first window passing at once. */
function waitMs(count: number, window: RateLimitWindow | 'off'): number {
  if (window === 'off' || count === 0) return 0;
  return Math.max(0, Math.ceil(count / window.limit - 1)) * window.windowMs;
}

function floorOf(requests: RequestRecord[]): Floor {
  const buckets = new Map<string, number>();
  for (const request of requests) {
    const key = bucketKey(request);
    buckets.set(key, (buckets.get(key) ?? 0) + 1);
  }
  let busiest = { key: '-', count: 0, ms: 0 };
  for (const [key, count] of buckets) {
    const ms = waitMs(count, RATE_LIMITS.perRoute);
    if (ms > busiest.ms || (ms === busiest.ms && count > busiest.count)) busiest = { key, count, ms };
  }
  const globalMs = waitMs(requests.length, RATE_LIMITS.global);
  return { calls: requests.length, busiest, globalMs, floorMs: Math.max(busiest.ms, globalMs) };
}

interface ActivityCall {
  step: ChangeStep;
  start: number;
  end: number;
}

/** Each change-step call is timed, so the platform's requests can be put to steps. */
function inProcess(activities: RestoreActivities, calls: ActivityCall[]): RestoreActivities {
  const wrapped: Record<string, unknown> = {};
  const stepOf = new Map<string, ChangeStep>(CHANGE_STEPS.map((step) => [STEP_ACTIVITY[step], step]));
  for (const [name, activity] of Object.entries(activities) as [
    string,
    (input: never) => Promise<unknown>,
  ][]) {
    const step = stepOf.get(name);
    wrapped[name] = async (input: never) => {
      const call: ActivityCall | undefined = step && {
        step,
        start: Date.now(),
        end: Number.POSITIVE_INFINITY,
      };
      if (call) calls.push(call);
      try {
        const outcome = await activity(input);
        if (call && VERBOSE) {
          const { jobId: _job, ...ref } = input as { jobId: string };
          console.log(
            `    ${step} ${JSON.stringify(ref)} -> ${JSON.stringify(outcome)} (${Date.now() - call.start} ms)`,
          );
        }
        return outcome;
      } finally {
        if (call) call.end = Date.now();
      }
    };
  }
  return wrapped as unknown as RestoreActivities;
}

/** What a comparison still finds to do; empty when the guild equals the snapshot. */
function leftovers(diff: RestoreDiff): string[] {
  const lists = [
    'roles_to_create',
    'roles_to_update',
    'roles_to_delete',
    'channels_to_create',
    'channels_to_update',
    'channels_to_delete',
    'overrides_to_apply',
    'overrides_to_remove',
    'member_roles_to_restore',
    'bans_to_lift',
    'emojis_to_create',
    'emojis_to_update',
    'emojis_to_delete',
    'stickers_to_create',
    'stickers_to_update',
    'stickers_to_delete',
    'skipped',
  ] as const;
  const left: string[] = lists
    .filter((list) => (diff[list]?.length ?? 0) > 0)
    .map((l) => `${l}: ${diff[l]!.length}`);
  const settings = Object.keys(diff.guild_settings_diff);
  if (settings.length > 0) left.push(`guild_settings_diff: ${settings.join(', ')}`);
  return left;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A bucket key, readably: the route, and whether its major parameter is the guild or a channel. */
function bucketLabel(key: string, platformGuildId: string): string {
  const [method, template, major] = key.split(' ');
  const scope = major === platformGuildId ? 'the guild' : major === 'global' ? 'no major' : 'one channel';
  return `${method} ${template} (${scope})`;
}

/**
 * Calls the old way makes: the most-used open-source backup library restores by clearing the guild
 * (every role but @everyone and the managed ones, every channel) and creating the snapshot's roles
 * and channels (overwrites in the channel's create call), one call each at a fixed pace, then the
 * settings in one (the guild before and after the raid, as the platform holds them).
 */
function wipeAndRecreateCalls(
  raided: { id: string; roles: { id: string; managed?: boolean }[]; channels: unknown[] },
  snapshot: { id: string; roles: { id: string; managed?: boolean }[]; channels: unknown[] },
): number {
  const custom = (roles: { id: string; managed?: boolean }[], everyone: string) =>
    roles.filter((role) => role.id !== everyone && !role.managed).length;
  return (
    custom(raided.roles, raided.id) +
    raided.channels.length +
    custom(snapshot.roles, snapshot.id) +
    snapshot.channels.length +
    1
  );
}

export interface CaseResult {
  label: string;
  /** The member case: calls per changed member and the member step against its bucket's floor. */
  members?: { perMember: number; ratio: number };
  oldWayCalls: number;
  calls: number;
  changes: number;
  throttled: number;
  wallMs: number;
  floorMs: number;
  passed: boolean;
}

async function main(): Promise<void> {
  migrateTestDatabase();
  const results: CaseResult[] = [];
  // BENCH_CASES=emojis: only the cases whose label holds one of the comma-separated words.
  const only = process.env.BENCH_CASES?.split(',').filter(Boolean);
  for (const size of CASES) {
    if (!only || only.some((word) => size.label.includes(word))) results.push(await runCase(size));
  }
  console.log('\nsummary');
  console.log(
    `  ${'guild'.padEnd(20)} ${'calls'.padStart(6)} ${'per change'.padStart(10)} ${'429s'.padStart(5)} ` +
      `${'wall'.padStart(8)} ${'floor'.padStart(8)} ${'ratio'.padStart(6)} ` +
      `${'vs the old way'.padStart(16)}`,
  );
  for (const r of results) {
    console.log(
      `  ${r.label.padEnd(20)} ${String(r.calls).padStart(6)} ${(r.calls / Math.max(1, r.changes)).toFixed(2).padStart(10)} ` +
        `${String(r.throttled).padStart(5)} ${s(r.wallMs).padStart(8)} ${s(r.floorMs).padStart(8)} ` +
        `${`${(r.wallMs / Math.max(1, r.floorMs)).toFixed(2)}x`.padStart(6)} ` +
        // The old way gives no member their roles back, so there is nothing to compare with.
        `${(r.members ? 'no such thing' : `${((r.oldWayCalls * PACING_MS) / r.wallMs).toFixed(1)}x faster`).padStart(16)}`,
    );
  }
  for (const r of results) {
    if (!r.members) continue;
    console.log(
      `  ${r.label}: ${r.members.perMember.toFixed(3)} calls per changed member, member step ` +
        `${r.members.ratio.toFixed(2)}x the member-update bucket's floor`,
    );
  }
  if (results.some((r) => !r.passed)) process.exitCode = 1;
}

export async function runCase(size: BenchGuild): Promise<CaseResult> {
  const memberCase = size.rolesPerMember !== undefined;
  const scope = memberCase ? MEMBER_SCOPE : size.expressions ? EXPRESSION_SCOPE : SCOPE;
  RATE_LIMITS = memberCase ? MEMBER_RATE_LIMITS : DEFAULT_RATE_LIMITS;
  if (size.roleQuota) RATE_LIMITS = { ...RATE_LIMITS, roleCreations: size.roleQuota };
  // Seeding, the snapshot and the raid run without limits (they are set-up, not measured); the
  // limits are switched on, with fresh windows, just before the restore starts.
  const platform = new FakeChatPlatform({
    rateLimits: { perRoute: 'off', global: 'off' },
    logCapacity: 100_000,
  });
  const { url } = await platform.start();
  // The recovery app's DataSource shape (schema and entities: GuildRegistry reads through the
  // Guild entity), on the test database of test/support/database.ts.
  const dataSource = await new DataSource({
    type: 'postgres',
    url: process.env.DATABASE_URL,
    schema: recoveryDatabase.schema,
    entities: recoveryDatabase.entities,
    extra: { max: 5 },
  }).initialize();
  const guildId = uuidv7();
  const result: CaseResult = {
    label: size.label,
    oldWayCalls: 0,
    calls: 0,
    changes: 0,
    throttled: 0,
    wallMs: 0,
    floorMs: 0,
    passed: false,
  };
  try {
    const spec = generatedGuild({
      name: size.label,
      customRoles: size.customRoles,
      categories: size.categories,
      channelsPerCategory: size.channelsPerCategory,
      members: size.members,
      rolesPerMember: size.rolesPerMember,
    });
    const seeded = platform.seedGuild(size.expressions ? withExpressions(spec, size.expressions) : spec);
    const seededState = platform.guild(seeded.guildId);
    const overrideCount = seededState.channels.reduce((sum, c) => sum + c.permission_overwrites.length, 0);
    await dataSource.query(
      `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
       VALUES ($1, $2, $3, $4, now())`,
      [guildId, seeded.guildId, seededState.name, seeded.ownerId],
    );

    // One client for the whole app, as PlatformModule provides it (it owns the rate-limit queues).
    const client = new ChatPlatformClient({
      apiBaseUrl: `${url}/api`,
      cdnBaseUrl: platform.cdnUrl,
      botToken: platform.botToken,
      ...(size.roleQuota && { longestRateLimitWaitMs: 1_000 }),
    });
    const events = new RecoveryEvents(new OutboxWriter('recovery', 'recovery'));
    const guildRows = new GuildsRepository(dataSource);
    const snapshotRows = new SnapshotsRepository(dataSource);
    const imageStore = new PostgresImageStore(dataSource);
    const guilds = new GuildRegistry(guildRows, client, new GuildAccessService(guildRows, client));
    const snapshots = new SnapshotService(
      dataSource,
      client,
      // Consulted only for the images to keep (the expressions case): as licensing answers ENTERPRISE.
      { get: () => Promise.resolve(ENTERPRISE_IMAGES) } as unknown as EntitlementsClient,
      snapshotRows,
      events,
      imageStore,
    );
    const jobs = new RestoreJobsRepository(dataSource, events);
    const comparisons = new RestoreComparisons(
      snapshotRows,
      new PlatformIdReplacementsRepository(dataSource),
      client,
    );
    const steps = new RestoreSteps(client);
    const liveSync = new LiveSyncControl(dataSource);

    const guild = await guilds.get(guildId);
    const snapshot = await snapshots.create({ guild, trigger: 'scheduled', createdByUser: null });

    const raider = new ChatPlatformClient({ apiBaseUrl: `${url}/api`, botToken: platform.botToken });
    await (memberCase ? raidMembers : raid)(raider, seeded, size);
    if (size.expressions) await raidExpressions(raider, seeded);
    const raided = platform.guild(seeded.guildId);

    const target = await comparisons.snapshotPayload(snapshot.id, guildId);
    const { diff } = await comparisons.compare(guildId, seeded.guildId, target, scope);
    const jobId = uuidv7();
    const inserted = await jobs.insertPending({
      id: jobId,
      guildId,
      snapshotId: snapshot.id,
      requestedByUser: uuidv7(),
      requestedByPlatformUserId: seeded.ownerId,
      scope,
      options: { create_pre_restore_snapshot: false },
      previewDiff: diff,
    });
    if (!inserted) throw new Error('a restore of the bench guild is already active');
    await jobs.markRunning(jobId, `bench-restore-${jobId}`);

    const calls: ActivityCall[] = [];
    const activities = inProcess(
      createRestoreActivities({ jobs, guilds, comparisons, steps, snapshots, liveSync, images: imageStore }),
      calls,
    );
    const totals = changesPerStep(diff);
    const progress = new RestoreProgress(totals);
    const waits: { reason: string; ms: number }[] = [];

    platform.setRateLimits(RATE_LIMITS);
    const started = Date.now();
    const outcome = await runRestore(
      { jobId, scope, createPreRestoreSnapshot: false, totals },
      {
        activities,
        cancelRequested: () => false,
        classify: (error, ref) => {
          console.error('restore failed:', error);
          return {
            jobId: ref.jobId,
            status: 'failed',
            code: 'Error',
            message: error instanceof Error ? error.message : String(error),
          };
        },
        shielded: (work) => work(),
        // A wait the platform asked for (a creation quota): recorded, then waited out.
        sleepUntil: async (until) => {
          const waiting = progress.summary().waiting;
          if (waiting) waits.push({ reason: waiting.reason, ms: Date.parse(until) - Date.now() });
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(until) - Date.now())));
        },
        phases: OVERLAPPED_PHASES,
      },
      progress,
    );
    const ended = Date.now();
    const wallMs = ended - started;

    const logged = platform.requestLog().filter((r) => r.at >= started && r.at <= ended);
    // A 429 is a wasted attempt, retried by the client: the floor and the pacing figure count the
    // calls the restore needed, i.e. the other answers.
    const throttled = logged.filter((r) => r.status === 429);
    const requests = logged.filter((r) => r.status !== 429);
    const errors = requests.filter((r) => r.status >= 400 && r.status !== 404).length;
    const whole = floorOf(requests);
    // The quota case: each window of the role creation quota past the first is waited out whole.
    const roleCreates = requests.filter((r) => r.method === 'POST' && r.route === '/guilds/:guild_id/roles');
    const quotaMs = size.roleQuota ? waitMs(roleCreates.length, size.roleQuota) : 0;
    if (quotaMs > whole.floorMs) whole.floorMs = quotaMs;
    // Steps run side by side, so a request is not put to one: each step's span is shown instead.
    const perStep = CHANGE_STEPS.map((step) => {
      const own = calls.filter((call) => call.step === step);
      return {
        step,
        activityCalls: own.length,
        from: Math.min(...own.map((call) => call.start)) - started,
        to: Math.max(...own.map((call) => call.end)) - started,
      };
    });

    // The guild now equals the snapshot: a fresh comparison finds nothing left to do.
    const after = await comparisons.compare(guildId, seeded.guildId, target, scope);
    const left = leftovers(after.diff);
    const job = await jobs.get(jobId);

    const damage = {
      roles: `${seededState.roles.length} -> ${raided.roles.length}`,
      channels: `${seededState.channels.length} -> ${raided.channels.length}`,
    };
    console.log(
      `restore of a raided guild: ${seededState.roles.length} roles, ${seededState.channels.length} channels ` +
        `(${size.categories} categories), ${overrideCount} overrides in the snapshot; after the raid roles ` +
        `${damage.roles}, channels ${damage.channels}`,
    );
    console.log(
      `  preview: ${diff.roles_to_create.length} roles to create, ${diff.roles_to_update.length} to update, ` +
        `${diff.roles_to_delete.length} to delete; ${diff.channels_to_create.length} channels to create, ` +
        `${diff.channels_to_update.length} to update, ${diff.channels_to_delete.length} to delete; ` +
        `${diff.overrides_to_apply.length} overrides to apply, ${diff.overrides_to_remove.length} to remove; ` +
        `${Object.keys(diff.guild_settings_diff).length} settings (estimate: ${diff.estimated_duration})`,
    );
    console.log(
      `  rate limits (fake platform): per bucket (method + route + major parameter) ` +
        `${describeLimit(RATE_LIMITS.perRoute)}, global ${describeLimit(RATE_LIMITS.global)}`,
    );
    const row = (label: string, value: string) => console.log(`  ${label.padEnd(56)} ${value}`);
    row('outcome', `${outcome} (job ${job?.status ?? 'missing'})`);
    row('platform calls made by the restore (429s not counted)', String(requests.length));
    const changes = Object.values(totals).reduce((sum, count) => sum + count, 0);
    row(
      "calls per change (the preview's changes, every step)",
      `${(requests.length / Math.max(1, changes)).toFixed(2)} (${requests.length} calls for ${changes} changes)`,
    );
    row(
      '429 answers (each retried by @discordjs/rest)',
      `${throttled.length}` +
        (throttled.length > 0
          ? ` (${throttled.map((r) => `${r.method} ${r.route} at +${((r.at - started) / 1000).toFixed(1)} s`).join(', ')})`
          : ''),
    );
    row('other error answers (4xx/5xx, 404 excluded)', String(errors));
    if (size.roleQuota) {
      row(
        `role creation quota (${describeLimit(size.roleQuota)})`,
        `${roleCreates.length} roles created; waited ${waits.length} times for it ` +
          `(${waits.map((wait) => `${wait.reason} ${s(wait.ms)}`).join(', ')}); floor ${s(quotaMs)}`,
      );
    }
    row('wall time (runRestore)', s(wallMs));
    row(
      'floor: max(busiest bucket, global)',
      `${s(whole.floorMs)}  ratio ${(wallMs / Math.max(1, whole.floorMs)).toFixed(2)}x ` +
        `(busiest bucket ${bucketLabel(whole.busiest.key, seeded.guildId)}: ${whole.busiest.count} calls, ` +
        `${s(whole.busiest.ms)}; global ${s(whole.globalMs)})`,
    );
    const inBusiest = requests.filter((r) => bucketKey(r) === whole.busiest.key).map((r) => r.at - started);
    row(
      'busiest bucket in use (first and last answer)',
      inBusiest.length === 0
        ? '-'
        : `+${s(Math.min(...inBusiest))} to +${s(Math.max(...inBusiest))} of ${s(wallMs)}`,
    );
    const oldWayCalls = wipeAndRecreateCalls(raided, seededState);
    row(
      `the old way: wipe and recreate, ${PACING_MS} ms apart`,
      `${s(oldWayCalls * PACING_MS)}  = ${oldWayCalls} calls x ${PACING_MS} ms; ` +
        `restore is ${((oldWayCalls * PACING_MS) / wallMs).toFixed(1)}x faster`,
    );
    row(
      `our own calls, ${PACING_MS} ms apart`,
      `${s(requests.length * PACING_MS)}  = ${requests.length} calls x ${PACING_MS} ms; ` +
        `restore is ${((requests.length * PACING_MS) / wallMs).toFixed(1)}x faster`,
    );
    console.log(
      '  the steps run in phases, side by side within one (channel and role deletes; overwrite deletes,\n' +
        '  roles, channels and overwrites; settings); each call of a step re-reads the guild',
    );
    console.log(`  ${'step'.padEnd(26)} ${'calls'.padStart(6)}  span`);
    for (const step of perStep) {
      if (step.activityCalls === 0) continue;
      console.log(
        `  ${step.step.padEnd(26)} ${String(step.activityCalls).padStart(6)}  +${s(step.from)} to +${s(step.to)}`,
      );
    }
    if (memberCase) {
      // The members' roles step's own figures: its calls (member updates, the member list's pages
      // and its re-reads of the guild) against the members it changed, and its span against the
      // floor of the member-update bucket for the updates it made.
      const step = perStep.find((entry) => entry.step === 'RestoreMemberRoles')!;
      const own = requests.filter((r) => r.at - started >= step.from && r.at - started <= step.to);
      const updates = own.filter(
        (r) => r.method === 'PATCH' && r.route === '/guilds/:guild_id/members/:user_id',
      );
      const floorMs = waitMs(updates.length, RATE_LIMITS.perRoute);
      const spanMs = step.to - step.from;
      result.members = {
        perMember: own.length / Math.max(1, diff.members_to_update),
        ratio: spanMs / Math.max(1, floorMs),
      };
      row(
        'members: changed, calls of the step, per changed member',
        `${diff.members_to_update} members; ${own.length} calls (${updates.length} member updates); ` +
          `${(own.length / Math.max(1, diff.members_to_update)).toFixed(3)} per member`,
      );
      row(
        'members: step time vs the member-update bucket floor',
        `${s(spanMs)} vs ${s(floorMs)}  ratio ${(spanMs / Math.max(1, floorMs)).toFixed(2)}x`,
      );
    }
    const routes = new Map<string, number>();
    for (const request of requests) {
      const route = `${request.method} ${request.route ?? request.path}`;
      routes.set(route, (routes.get(route) ?? 0) + 1);
    }
    console.log(
      `  calls by route: ${[...routes]
        .sort((a, b) => b[1] - a[1])
        .map(([route, count]) => `${route} ${count}`)
        .join(', ')}`,
    );

    Object.assign(result, {
      oldWayCalls,
      calls: requests.length,
      changes,
      throttled: throttled.length,
      wallMs,
      floorMs: whole.floorMs,
      passed: outcome === 'completed' && left.length === 0 && (!size.roleQuota || waits.length > 0),
    });
    if (!result.passed) {
      const problems = [
        ...(outcome === 'completed' ? [] : [`the restore ended ${outcome}`]),
        ...(left.length > 0 ? [`the guild still differs from the snapshot: ${left.join('; ')}`] : []),
      ];
      console.error(`FAILED: ${problems.join(', and ')}`);
    } else {
      console.log('  verified: a fresh comparison with the snapshot finds nothing left to restore');
    }
  } finally {
    // One transaction, the guild row locked first: a recovery app sharing the test database (an
    // integration run) plans scheduled snapshot runs for every active guild, this one included.
    await dataSource.transaction(async (manager) => {
      await manager.query(`SELECT 1 FROM recovery.guilds WHERE id = $1 FOR UPDATE`, [guildId]);
      for (const table of [
        'platform_id_replacements',
        'live_sync_pauses',
        'scheduled_snapshot_runs',
        'restore_jobs',
        'snapshots',
      ]) {
        await manager.query(`DELETE FROM recovery.${table} WHERE guild_id = $1`, [guildId]);
      }
      await manager.query(`DELETE FROM recovery.outbox WHERE message_key = $1`, [guildId]);
      await manager.query(`DELETE FROM recovery.guilds WHERE id = $1`, [guildId]);
    });
    await dataSource.destroy();
    await platform.stop();
  }
  return result;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
