import { CONSUMER_GROUPS, type InternalIdentity, INTERNAL_TOKEN_HEADER } from '@lib/contracts';
import { FakeChatPlatform } from '@lib/sandbox';
import { v7 as uuidv7 } from 'uuid';
import { type AppProcess, freePort, startApp } from './app-process';
import { type BillingEventStream, SubscriptionScenario } from './billing-events';
import { waitForIdleGroups } from './replica-set';
import { testKafka } from './test-kafka';
import { waitFor } from './wait';
import { signInternalToken } from './internal-tokens';
import { OWNER, seedProtectedGuild } from './restore-scenario';

export type UserIdentity = Extract<InternalIdentity, { kind: 'user' }>;

/**
 * Recovery and licensing as separate processes, wired to each other and to a fake chat platform
 * in the test process: what guild-scoped routes need to answer for real.
 */
export class RecoveryStack {
  readonly platform = new FakeChatPlatform();
  /** Restore workflows of this stack only: a queue of its own on the shared Temporal server. */
  readonly taskQueue = `recovery-test-${uuidv7()}`;

  /**
   * `worker: true` runs the restore worker inside recovery (RECOVERY_ROLE=all); `liveSync: true`
   * connects recovery to the fake platform's gateway (LIVE_SYNC_ENABLED); `env` adds variables to
   * recovery's environment, and removes those set to undefined (e.g. TEMPORAL_ADDRESS).
   */
  constructor(
    private readonly options: {
      worker?: boolean;
      liveSync?: boolean;
      env?: Record<string, string | undefined>;
    } = {},
  ) {}

  recovery!: AppProcess;
  licensing!: AppProcess;
  private recoveryEnv: Record<string, string | undefined> = {};
  private recoveryPort = 0;
  /** A recovery of this stack was SIGKILLed: it left a member in the consumer group. */
  private killed = false;

  async start(): Promise<void> {
    const { url } = await this.platform.start();
    const [recoveryPort, licensingPort] = [await freePort(), await freePort()];
    const recoveryUrl = `http://127.0.0.1:${recoveryPort}`;
    const licensingUrl = `http://127.0.0.1:${licensingPort}`;
    this.recoveryEnv = {
      DISCORD_API_URL: `${url}/api`,
      DISCORD_CDN_URL: this.platform.cdnUrl,
      DISCORD_BOT_TOKEN: 'fake-bot-token',
      LICENSING_URL: licensingUrl,
      RECOVERY_ROLE: this.options.worker ? 'all' : 'api',
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      LIVE_SYNC_ENABLED: String(this.options.liveSync ?? false),
      ...this.options.env,
    };
    this.recoveryPort = recoveryPort;
    const started = await Promise.allSettled([
      startApp('recovery', this.recoveryEnv, { port: recoveryPort }),
      startApp('licensing', { RECOVERY_URL: recoveryUrl }, { port: licensingPort }),
    ]);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      // The app that did start is stopped: left running, it would stay a member of this worker's
      // consumer groups and take the events of the suites after this one.
      for (const result of started) if (result.status === 'fulfilled') await result.value.stop();
      throw failed.reason;
    }
    [this.recovery, this.licensing] = started.map(
      (result) => (result as PromiseFulfilledResult<AppProcess>).value,
    );
  }

  /**
   * Another recovery process on this stack's database, queue and platform (a replica, a worker), on
   * a free port of its own; `readyTimeoutMs` for processes started several at once on a busy machine.
   */
  startRecoveryProcess(
    env: Record<string, string | undefined> = {},
    { readyTimeoutMs }: { readyTimeoutMs?: number } = {},
  ): Promise<AppProcess> {
    return startApp('recovery', { ...this.recoveryEnv, ...env }, { readyTimeoutMs });
  }

  /** Stops recovery with `signal` (SIGKILL: a crash) and starts a new process in its place. */
  async restartRecovery(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (signal === 'SIGKILL') this.killed = true;
    await this.recovery.stop(signal);
    this.recovery = await startApp('recovery', this.recoveryEnv, { port: this.recoveryPort });
  }

  /**
   * Resolves once recovery's live sync holds a gateway connection to the fake platform
   * (`liveSync: true`). Identifies are paced across every recovery on the database, so a busy
   * machine waits long; a failure says what recovery logged and which IDENTIFYs were refused.
   */
  async onTheGateway(timeoutMs = 90_000): Promise<void> {
    await waitFor(
      'recovery on the gateway',
      () =>
        this.platform
          .gatewayConnections()
          .some((connection) => connection.userId === this.platform.botUserId),
      { timeoutMs, intervalMs: 200 },
    ).catch((error: Error) => {
      const refused = JSON.stringify(this.platform.identifyRefusals());
      throw new Error(
        `${error.message}\nrefused IDENTIFYs: ${refused}\n--- recovery ---\n${this.recovery.output().slice(-4000)}`,
      );
    });
  }

  async stop(): Promise<void> {
    await Promise.all([this.recovery?.stop(), this.licensing?.stop()]);
    // A killed recovery stays a member of this worker's consumer group until its session times out
    // (30 s); the next suite's recovery would meanwhile wait on a rebalance for it, and the events
    // it needs (a licence's upgrade) with it. So the group is left empty, as it was found.
    if (this.killed) await waitForIdleGroups(testKafka('recovery-stack'), [CONSUMER_GROUPS.recovery], 90_000);
    await this.platform.stop();
  }

  user(platformUserId: string): UserIdentity {
    return { kind: 'user', user_id: uuidv7(), platform_user_id: platformUserId, session_id: uuidv7() };
  }

  /** A guild on the fake platform, registered with recovery; OWNER administers it. */
  async registeredGuild(name: string): Promise<{ guildId: string; platformGuildId: string }> {
    const seeded = seedProtectedGuild(this.platform, name);
    const registered = await this.call(this.recovery, 'POST', '/api/v1/guilds', this.user(OWNER), {
      platform_guild_id: seeded.guildId,
    });
    if (registered.status !== 200)
      throw new Error(`guild registration failed: ${JSON.stringify(registered)}`);
    return { guildId: registered.body.id as string, platformGuildId: seeded.guildId };
  }

  /**
   * Registers a guild seeded on the fake platform as its owner, puts it on ENTERPRISE through
   * billing's events, and resolves with our guild id once its AntiNuke workflow runs.
   */
  async guildWatchedByAntiNuke(
    platformGuildId: string,
    billing: BillingEventStream,
    ownerPlatformUserId = OWNER,
  ): Promise<string> {
    const owner = this.user(ownerPlatformUserId);
    const registered = await this.call(this.recovery, 'POST', '/api/v1/guilds', owner, {
      platform_guild_id: platformGuildId,
    });
    if (registered.status !== 200)
      throw new Error(`guild registration failed: ${JSON.stringify(registered)}`);
    const guildId = registered.body.id as string;
    await billing.publish(new SubscriptionScenario(guildId).started('ENTERPRISE'));
    await waitFor(
      'AntiNuke to watch the guild',
      async () =>
        (await this.call(this.recovery, 'GET', `/api/v1/guilds/${guildId}/antinuke`, owner)).body
          .workflow_running === true,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    return guildId;
  }

  /** A request to an app as the gateway would forward it for `identity`. */
  async call(
    app: AppProcess,
    method: string,
    path: string,
    identity: InternalIdentity | null,
    body?: unknown,
  ): Promise<{
    status: number;
    body: Record<string, unknown>;
    contentType: string | null;
    headers: Headers;
  }> {
    const headers: Record<string, string> = {};
    if (identity) headers[INTERNAL_TOKEN_HEADER] = await signInternalToken(identity, app.name);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      contentType: response.headers.get('content-type'),
      headers: response.headers,
    };
  }
}
