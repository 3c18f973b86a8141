import { ChatPlatformClient, type GuildState } from '@lib/chat-platform';
import type { GuildSpec, SeededGuild } from '@lib/sandbox';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream, SubscriptionScenario } from './billing-events';
import { openDataSource } from './database';
import type { RecoveryStack } from './recovery-stack';
import { idMap, OWNER, restorable, seedProtectedGuild } from './restore-scenario';
import { waitFor } from './wait';

type Body = Record<string, unknown>;
export const ALL_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];

/**
 * What a restore test does through recovery's API, shared by the restore suite and the fault suite:
 * a protected guild with a known-good snapshot, preview and start, wait for the end, compare the
 * live guild with the snapshot. `open()` in beforeAll (after the stack started), `close()` after.
 */
export class RestoreHarness {
  dataSource!: DataSource;
  reader!: ChatPlatformClient;
  private billing: BillingEventStream | undefined;

  /**
   * `grantLicense`: how a guild gets its plan. By default billing's SubscriptionStarted goes through
   * Kafka and licensing; a suite without the event transport stores the licence itself.
   */
  constructor(
    private readonly stack: RecoveryStack,
    private readonly grantLicense?: (guildId: string, plan: 'PRO' | 'ENTERPRISE') => Promise<void>,
  ) {}

  async open(): Promise<void> {
    this.dataSource = await openDataSource();
    if (!this.grantLicense) this.billing = new BillingEventStream();
    this.reader = new ChatPlatformClient({
      apiBaseUrl: `${this.stack.platform.url}/api`,
      cdnBaseUrl: this.stack.platform.cdnUrl,
      botToken: 'fake-bot-token',
    });
  }

  async close(): Promise<void> {
    await this.billing?.close();
    await this.dataSource?.destroy();
  }

  readonly post = (path: string, body: unknown, user = OWNER) =>
    this.stack.call(this.stack.recovery, 'POST', path, this.stack.user(user), body);

  readonly getJob = (jobId: string, user = OWNER) =>
    this.stack.call(this.stack.recovery, 'GET', `/api/v1/restore/${jobId}`, this.stack.user(user));

  /** A registered PRO guild with a manual snapshot taken before anything went wrong. */
  readonly protectedGuild = async (
    options: {
      plan?: 'PRO' | 'ENTERPRISE' | null;
      extraRoles?: number;
      /** Members `crowd-<i>` besides the admin and the member (see seedProtectedGuild). */
      crowd?: number;
      /** The bot's standing in the guild; default the invite's (ADMINISTRATOR, at the top). */
      bot?: GuildSpec['bot'];
      /** Changes to the guild's seed (as it stood from the start, without gateway events). */
      adjustSpec?: (spec: GuildSpec) => void;
      /** What happens to the guild before the known-good snapshot is taken. */
      beforeSnapshot?: (seeded: SeededGuild) => Promise<void>;
    } = {},
  ) => {
    const name = `Guild ${uuidv7().slice(-6)}`;
    const seeded = seedProtectedGuild(
      this.stack.platform,
      name,
      options.extraRoles,
      options.crowd,
      options.bot,
      options.adjustSpec,
    );
    await options.beforeSnapshot?.(seeded);
    const registered = await this.post('/api/v1/guilds', { platform_guild_id: seeded.guildId });
    if (registered.status !== 200) throw new Error(`registration: ${JSON.stringify(registered)}`);
    const guildId = registered.body.id as string;
    const plan = options.plan === undefined ? 'PRO' : options.plan;
    if (plan && this.grantLicense) await this.grantLicense(guildId, plan);
    else if (plan) {
      await this.billing!.publish(new SubscriptionScenario(guildId).started(plan));
      await waitFor('the licence', async () => {
        const rows = await this.dataSource.query(`SELECT 1 FROM licensing.licenses WHERE guild_id = $1`, [
          guildId,
        ]);
        return rows.length === 1;
      });
    }
    const snapshot = plan
      ? await this.post(`/api/v1/guilds/${guildId}/snapshots`, { description: 'known good' })
      : null;
    if (snapshot && snapshot.status !== 200) throw new Error(`snapshot: ${JSON.stringify(snapshot)}`);
    const snapshotId = snapshot
      ? (snapshot.body.id as string)
      : await this.insertSnapshot(guildId, seeded.guildId);
    const [{ payload }] = await this.dataSource.query<{ payload: GuildState }[]>(
      `SELECT payload FROM recovery.snapshots WHERE id = $1`,
      [snapshotId],
    );
    return { seeded, name, guildId, snapshotId, payload };
  };

  /** A FREE guild cannot take a manual snapshot; a scheduled one is stored directly. */
  readonly insertSnapshot = async (guildId: string, platformGuildId: string): Promise<string> => {
    const id = uuidv7();
    const state = await this.reader.getGuildState(platformGuildId);
    await this.dataSource.query(
      `INSERT INTO recovery.snapshots (id, guild_id, payload, payload_size, trigger) VALUES ($1, $2, $3, 1, 'scheduled')`,
      [id, guildId, JSON.stringify({ version: 1, snapshot_at: new Date().toISOString(), ...state })],
    );
    return id;
  };

  readonly preview = (snapshotId: string, scope = ALL_SCOPES, user = OWNER) =>
    this.post('/api/v1/restore/preview', { snapshot_id: snapshotId, scope }, user);

  readonly start = async (snapshotId: string, scope = ALL_SCOPES, options: Body = {}) => {
    const previewed = await this.preview(snapshotId, scope);
    if (previewed.status !== 200) throw new Error(`preview: ${JSON.stringify(previewed)}`);
    return this.post('/api/v1/restore/start', {
      snapshot_id: snapshotId,
      scope,
      approved_diff_hash: previewed.body.diff_hash,
      options,
    });
  };

  /** The job once it ended; on a time-out, the job and recovery's last output in the error. */
  readonly finished = async (jobId: string, timeoutMs = 60_000): Promise<Body> => {
    const ended = waitFor(
      `restore ${jobId} to end`,
      async () => {
        const job = await this.getJob(jobId);
        return ['completed', 'failed', 'canceled'].includes(job.body.status as string) ? job.body : undefined;
      },
      { timeoutMs, intervalMs: 200 },
    );
    return ended.catch(async (error: Error) => {
      const job = await this.getJob(jobId);
      throw new Error(
        `${error.message}\njob: ${JSON.stringify({ ...job.body, preview_diff: undefined }).slice(0, 1500)}\n--- recovery ---\n${this.stack.recovery.output().slice(-4000)}`,
      );
    });
  };

  /** The live guild's restorable parts, with recreated ids followed back, as in the snapshot. */
  readonly restoredState = async (
    guildId: string,
    platformGuildId: string,
    payload: GuildState,
    scopes = ALL_SCOPES,
  ) => {
    const live = await this.reader.getGuildState(platformGuildId);
    const toLive = await idMap(this.dataSource, guildId);
    return { live: restorable(live, scopes), snapshot: restorable(payload, scopes, toLive) };
  };
}
