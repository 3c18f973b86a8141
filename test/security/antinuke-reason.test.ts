import { ChatPlatformClient } from '@lib/chat-platform';
import type { SeededGuild } from '@lib/sandbox';
import { AuditLogEvent } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

const RAIDER_TOKEN = 'antinuke-reason-raider-token';
type Body = Record<string, unknown>;

/**
 * A forged restore reason: the restore's platform writes carry the audit-log reason `Restore <job id>`,
 * which anyone in the guild can read. A raider (a compromised administrator, through the
 * platform's API with a token of their own) who sends that reason while the restore runs, or just
 * after it ended, must still open an incident; the bot's own deletes during the restore open none.
 * The whole chain is real: fake platform, gateway connection, live sync, AntiNuke's workflow.
 */
describe('AntiNuke and a copied restore reason', () => {
  const stack = new RecoveryStack({ worker: true, liveSync: true });
  let dataSource: DataSource;
  let billing: BillingEventStream;
  let raider: ChatPlatformClient;
  const owner = stack.user(OWNER);

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    stack.platform.registerBotToken(RAIDER_TOKEN, ADMIN, 'admin');
    raider = new ChatPlatformClient({ apiBaseUrl: `${stack.platform.url}/api`, botToken: RAIDER_TOKEN });
    await stack.onTheGateway();
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  const api = async (method: string, path: string, body?: unknown): Promise<Body> => {
    const answer = await stack.call(stack.recovery, method, path, owner, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer.body;
  };

  /**
   * An ENTERPRISE guild AntiNuke watches (threshold 3 in a minute, no auto-action), with a
   * snapshot; then three channels the snapshot lacks, which a restore will delete, and one of its
   * channels gone without a trace (no audit-log entry, no event), which a restore will recreate.
   */
  async function watchedGuild(): Promise<{ seeded: SeededGuild; guildId: string; snapshotId: string }> {
    const seeded = seedProtectedGuild(stack.platform, `Reason ${uuidv7().slice(-6)}`);
    const guildId = await stack.guildWatchedByAntiNuke(seeded.guildId, billing);
    await api('PUT', `/api/v1/guilds/${guildId}/antinuke`, {
      threshold: 3,
      window_seconds: 60,
      auto_action_enabled: false,
    });
    const snapshotId = (await api('POST', `/api/v1/guilds/${guildId}/snapshots`, {})).id as string;
    for (const name of ['spam-1', 'spam-2', 'spam-3']) {
      await raider.createChannel(seeded.guildId, { name, type: 0 });
    }
    stack.platform.mutate(seeded.guildId, (guild) => {
      guild.channels = guild.channels.filter((channel) => channel.id !== seeded.channels.general);
    });
    return { seeded, guildId, snapshotId };
  }

  async function startRestore(guildId: string, snapshotId: string): Promise<string> {
    const body = { snapshot_id: snapshotId, scope: ['channels'] };
    const preview = await api('POST', '/api/v1/restore/preview', body);
    expect((preview.channels_to_delete as unknown[]).length).toBe(3);
    const started = await api('POST', '/api/v1/restore/start', {
      ...body,
      approved_diff_hash: preview.diff_hash,
    });
    expect(started.guild_id).toBe(guildId);
    return started.id as string;
  }

  /** The raid: three channel deletes, each sent with the restore's own audit-log reason. */
  async function raidWithReason(seeded: SeededGuild, jobId: string): Promise<void> {
    for (const name of ['rules', 'announcements', 'mod-chat']) {
      await raider.deleteChannel(seeded.channels[name], { reason: `Restore ${jobId}` });
    }
  }

  async function incidentsOnceOpened(guildId: string): Promise<Body[]> {
    return waitFor(
      'an incident',
      async () => {
        const items = (await api('GET', `/api/v1/guilds/${guildId}/incidents`)).items as Body[];
        return items.length > 0 ? items : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${stack.recovery.output().slice(-4000)}`);
    });
  }

  /** The platform's record of who deleted what: the restore's deletes are the bot's. */
  function channelDeletesBy(platformGuildId: string, actor: string): number {
    return stack.platform
      .auditLog(platformGuildId)
      .filter((entry) => entry.action_type === AuditLogEvent.ChannelDelete && entry.user_id === actor).length;
  }

  it('opens an incident for a raid with the reason of the restore that is running', async () => {
    const { seeded, guildId, snapshotId } = await watchedGuild();
    // The restore gets stuck recreating the missing channel, after its own deletes, with the guild paused.
    stack.platform.injectFailure({
      method: 'POST',
      path: `/guilds/${seeded.guildId}/channels`,
      status: 503,
      times: 1_000,
    });
    try {
      const jobId = await startRestore(guildId, snapshotId);
      await waitFor(
        'the restore to delete what the snapshot lacks',
        () => channelDeletesBy(seeded.guildId, stack.platform.botUserId) === 3,
        { timeoutMs: 60_000 },
      );
      const [paused] = await dataSource.query<{ restore_job_id: string }[]>(
        `SELECT restore_job_id FROM recovery.live_sync_pauses WHERE guild_id = $1`,
        [guildId],
      );
      expect(paused?.restore_job_id).toBe(jobId);
      expect((await api('GET', `/api/v1/restore/${jobId}`)).status).toBe('running');

      await raidWithReason(seeded, jobId);

      const incidents = await incidentsOnceOpened(guildId);
      // The raider's, and only theirs: the bot's three deletes before it were passed over.
      expect(incidents).toEqual([
        expect.objectContaining({ actor_platform_user_id: ADMIN, action: 'channel_delete', count: 3 }),
      ]);
      await api('POST', `/api/v1/restore/${jobId}/cancel`);
    } finally {
      stack.platform.clearFailures();
    }
  });

  it('opens an incident for a raid with the reason of the restore that has just ended, and none for the restore', async () => {
    const { seeded, guildId, snapshotId } = await watchedGuild();
    const jobId = await startRestore(guildId, snapshotId);
    await waitFor(
      'the restore to complete',
      async () => (await api('GET', `/api/v1/restore/${jobId}`)).status === 'completed',
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(channelDeletesBy(seeded.guildId, stack.platform.botUserId)).toBe(3);

    await raidWithReason(seeded, jobId);

    const incidents = await incidentsOnceOpened(guildId);
    expect(incidents).toEqual([
      expect.objectContaining({ actor_platform_user_id: ADMIN, action: 'channel_delete', count: 3 }),
    ]);
  });
});
