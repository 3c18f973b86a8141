import type { DomainEvent } from '@lib/contracts';
import { v7 as uuidv7 } from 'uuid';
import type { DataSource } from 'typeorm';
import { BillingEventStream } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { sendJson } from '../support/http-json';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

const ADMIN_TOKEN = 'kick-the-bot-admin-token';
type Body = Record<string, unknown>;

/**
 * A raider's first move: kick the bot, so nothing watches what follows. The removal opens an
 * incident at once (no threshold), the registry stops protecting the guild, and the owner is told,
 * through the outbox, with the last snapshot taken before. The bot loses the audit log with the
 * guild, so the incident cannot name who kicked it.
 */
describe('AntiNuke when the bot is kicked first', () => {
  const stack = new RecoveryStack({ worker: true, liveSync: true });
  let dataSource: DataSource;
  let billing: BillingEventStream;
  const owner = stack.user(OWNER);

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    stack.platform.registerBotToken(ADMIN_TOKEN, ADMIN, 'admin');
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

  it('opens an incident at once, marks the guild removed, and tells the owner the last snapshot', async () => {
    // The bot's role lowest, as an owner who never moved it up has it: an admin outranks it.
    const seeded = seedProtectedGuild(stack.platform, `Kick ${uuidv7().slice(-6)}`, 0, 0, {
      rolePosition: 1,
    });
    const guildId = await stack.guildWatchedByAntiNuke(seeded.guildId, billing);
    const snapshotId = (await api('POST', `/api/v1/guilds/${guildId}/snapshots`, {})).id as string;

    const kicked = await sendJson(
      `${stack.platform.url}/api/v10/guilds/${seeded.guildId}/members/${stack.platform.botUserId}`,
      'DELETE',
      undefined,
      { Authorization: `Bot ${ADMIN_TOKEN}` },
    );
    expect(kicked.status).toBe(204);

    const [incident] = await waitFor(
      'the removal’s incident',
      async () => {
        const rows = await dataSource.query<Body[]>(
          `SELECT actor_platform_user_id, action, count, snapshot_id, snapshot_error
             FROM recovery.antinuke_incidents WHERE guild_id = $1`,
          [guildId],
        );
        return rows.length > 0 ? rows : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${stack.recovery.output().slice(-4000)}`);
    });
    expect(incident).toEqual({
      actor_platform_user_id: null,
      action: 'bot_removed',
      count: 1,
      snapshot_id: snapshotId,
      snapshot_error: null,
    });

    const [guild] = await dataSource.query<{ removed: boolean }[]>(
      `SELECT removed_at IS NOT NULL AS removed FROM recovery.guilds WHERE id = $1`,
      [guildId],
    );
    expect(guild.removed).toBe(true);

    const events = await dataSource.query<{ envelope: DomainEvent<'AntiNukeIncidentOpened'> }[]>(
      `SELECT envelope FROM recovery.outbox WHERE event_type = 'AntiNukeIncidentOpened' AND message_key = $1`,
      [guildId],
    );
    expect(events.map((row) => row.envelope.payload)).toEqual([
      expect.objectContaining({
        action: 'bot_removed',
        actor_platform_user_id: null,
        snapshot_id: snapshotId,
        owner_platform_user_id: OWNER,
      }),
    ]);

    // The guild is gone from the bot's reach: no undo composes from it (an incident that names no
    // raider in a guild still here is refused as ErrIncidentWithoutRaider).
    const [{ id: incidentId }] = await dataSource.query<{ id: string }[]>(
      `SELECT id FROM recovery.antinuke_incidents WHERE guild_id = $1`,
      [guildId],
    );
    const undo = await stack.call(
      stack.recovery,
      'POST',
      `/api/v1/guilds/${guildId}/antinuke/incidents/${incidentId}/undo`,
      owner,
    );
    expect(undo).toMatchObject({ status: 409, body: { code: 'ErrGuildInactive' } });
  });
});
