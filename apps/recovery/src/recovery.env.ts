import {
  IsCronExpression,
  IsEnvBoolean,
  IsHttpUrl,
  IsIntegerInRange,
  IsRequiredString,
  ConsumerEnv,
} from '@lib/config';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, ValidateIf } from 'class-validator';

export const RECOVERY_ROLES = ['api', 'worker', 'all'] as const;
export const WORKFLOW_ENGINES = ['temporal', 'in-process'] as const;
export type WorkflowEngine = (typeof WORKFLOW_ENGINES)[number];

export class RecoveryEnv extends ConsumerEnv {
  override PORT = 3001;

  /** How often the daily snapshot queue is planned and its due runs taken, on every replica. */
  @IsIntegerInRange(1_000)
  SCHEDULED_SNAPSHOTS_INTERVAL_MS: number = 30_000;

  /** When snapshot retention runs, in UTC (docs/behaviour.md §4.10: 04:00); one replica runs it. */
  @IsCronExpression()
  SNAPSHOT_RETENTION_CRON = '0 4 * * *';

  /**
   * Days a finished scheduled snapshot run (`recovery.scheduled_snapshot_runs`: done, skipped or
   * failed) is kept: the record of which days a guild's snapshot was taken or why not. The floor of
   * 2 keeps today's and yesterday's rows, which stop a day from being planned twice.
   */
  @IsIntegerInRange(2, 3650)
  SCHEDULED_SNAPSHOT_RUNS_RETENTION_DAYS: number = 30;

  /**
   * Minutes a change loosening AntiNuke (switching it or auto-action off, exempting someone more, a
   * higher threshold, a narrower window) waits when anyone but the guild's owner asks for it: the
   * owner is told by DM and can refuse it meanwhile. The owner's own changes apply at once.
   */
  @IsIntegerInRange(1, 43_200)
  ANTINUKE_LOOSENING_DELAY_MINUTES: number = 1_440;

  /** How often AntiNuke changes whose delay has passed are applied, on every replica. */
  @IsIntegerInRange(1_000, 3_600_000)
  ANTINUKE_PENDING_CHANGES_INTERVAL_MS: number = 60_000;

  /**
   * Days a deleted snapshot is kept, hidden, so the guild's owner can undo the delete; the nightly
   * retention job purges it after.
   */
  @IsIntegerInRange(1, 90)
  SNAPSHOT_DELETE_GRACE_DAYS: number = 7;

  /**
   * `api` serves HTTP only, `worker` also runs the Temporal worker, `all` both (docs/decisions/recovery-roles.md).
   * With WORKFLOW_ENGINE=in-process there is no worker: the process that starts a restore runs it.
   */
  @IsIn(RECOVERY_ROLES, { message: `RECOVERY_ROLE must be one of ${RECOVERY_ROLES.join(', ')}` })
  RECOVERY_ROLE: (typeof RECOVERY_ROLES)[number] = 'all';

  /**
   * `temporal` (the distributed deployment) or `in-process`: standalone mode, where restores and
   * AntiNuke run inside this process with the same retry policies but little durability: a
   * restore still running when the process stops ends failed (at shutdown, or at the next start),
   * except one waiting for the platform's creation quota at a graceful stop, which the next start
   * takes up where it waited; AntiNuke counts afresh. Only one process may run `in-process`
   * against a database.
   */
  @IsIn(WORKFLOW_ENGINES, { message: `WORKFLOW_ENGINE must be one of ${WORKFLOW_ENGINES.join(', ')}` })
  WORKFLOW_ENGINE: WorkflowEngine = 'temporal';

  /** Temporal's frontend, `host:port`; required with `WORKFLOW_ENGINE=temporal`. */
  @ValidateIf((env: RecoveryEnv) => env.WORKFLOW_ENGINE === 'temporal')
  @Matches(/^[^\s:]+:\d+$/, { message: 'TEMPORAL_ADDRESS must be host:port' })
  TEMPORAL_ADDRESS!: string;

  /** The Temporal namespace restores and AntiNuke run in. */
  @IsString()
  @IsNotEmpty()
  TEMPORAL_NAMESPACE = 'default';

  /** The task queue of the restore and AntiNuke workflows; API and workers must agree. */
  @Matches(/^[A-Za-z0-9._-]{1,100}$/, { message: 'TEMPORAL_TASK_QUEUE must be a plain name' })
  TEMPORAL_TASK_QUEUE = 'recovery';

  /**
   * A workflow bundle prebuilt at image build time (scripts/bundle-workflows.ts), loaded instead of
   * bundling the workflow sources at every worker start. Unset: the sources are bundled.
   */
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'TEMPORAL_WORKFLOW_BUNDLE must be a file path when set' })
  TEMPORAL_WORKFLOW_BUNDLE?: string;

  /** The chat platform's REST API without the version; the fake platform's in tests and the sandbox. */
  @IsHttpUrl()
  DISCORD_API_URL = 'https://discord.com/api';

  /**
   * Where the platform serves images (custom emojis, stickers, the guild's icon and banner), read
   * for snapshots; the fake platform's `/cdn` in tests and the sandbox.
   */
  @IsHttpUrl()
  DISCORD_CDN_URL = 'https://cdn.discordapp.com';

  @IsRequiredString()
  DISCORD_BOT_TOKEN!: string;

  /**
   * The longest rate-limit wait (ms) the platform client sits out inside a call. A longer one (a
   * guild's role or channel creation quota, a channel's name/topic edits) pauses the restore
   * instead: its progress says what it waits for and until when, and the workflow waits on a
   * timer, not in an activity. Tests shorten it together with the fake platform's windows.
   */
  @IsIntegerInRange(1_000, 3_600_000)
  PLATFORM_LONGEST_RATE_LIMIT_WAIT_MS: number = 60_000;

  /** The application's Ed25519 public key (developer portal, 64 hex), verifying `POST /interactions`. */
  @Matches(/^[0-9a-f]{64}$/i, {
    message: 'DISCORD_PUBLIC_KEY must be the application public key (64 hex characters)',
  })
  DISCORD_PUBLIC_KEY!: string;

  @IsHttpUrl()
  LICENSING_URL!: string;

  /**
   * Take part in live sync here (mirror, destructive actions for AntiNuke). Any number of replicas
   * may: the gateway's shards are spread over them through Postgres leases, each followed by one
   * replica at a time (docs/decisions/live-sync-across-replicas.md). Off by default.
   */
  @IsEnvBoolean()
  LIVE_SYNC_ENABLED: boolean = false;

  /**
   * The gateway shard count. Unset: the count the live replicas already use, else the platform's
   * recommendation (`GET /gateway/bot`). Set it to reshard (docs/runbook.md, "Live sync shards").
   */
  @IsOptional()
  @IsIntegerInRange(1, 32_767)
  LIVE_SYNC_SHARD_COUNT?: number;

  /** How often a live-sync replica looks at the shard leases: a dead replica's shards move within about this. */
  @IsIntegerInRange(100, 60_000)
  LIVE_SYNC_BALANCE_MS: number = 1_000;

  /**
   * After a live-sync shard's first gateway connect fails (the gateway unreachable), the next try;
   * also the longest a shard holding its IDENTIFY for GATEWAY_IDENTIFY_RESERVE waits before it
   * reads the session starts again. A shard the platform closed for good (4004, 4010-4014) is
   * never tried again.
   */
  @IsIntegerInRange(100, 600_000)
  LIVE_SYNC_CONNECT_RETRY_MS: number = 30_000;

  /**
   * Session starts held back: an IDENTIFY is sent only while `GET /gateway/bot` reports more than
   * this many remaining of the day's 1,000, since the platform resets the bot's token when they run
   * out. Below it the shard waits for the reset, with an alert and readiness down
   * (docs/runbook.md, "Gateway shard stopped or holding its identify").
   */
  @IsIntegerInRange(0, 1_000_000)
  GATEWAY_IDENTIFY_RESERVE: number = 50;

  /** How often live sync looks at the pause rows of paused guilds, to resume soon after their restore ends. */
  @IsIntegerInRange(100)
  LIVE_SYNC_PAUSE_POLL_MS: number = 1_000;

  /** How often live sync looks at every guild's plan again, to start or end mirroring as plans change. */
  @IsIntegerInRange(1_000)
  LIVE_SYNC_ENTITLEMENT_RECHECK_MS: number = 60_000;
}
