import { DEFAULT_RATE_LIMITS, memberSpecs } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream, SubscriptionScenario } from '../support/billing-events';
import { openDataSource } from '../support/database';
import {
  connectInteractions,
  postInteraction,
  snapshotCommand,
  snapshotCreate,
} from '../support/interactions';
import { RecoveryStack } from '../support/recovery-stack';
import { waitFor } from '../support/wait';

const OWNER = '100000000000000001';
const ADMIN = '100000000000000002';
const MODERATOR = '100000000000000003';
const MEMBER = '100000000000000004';

/**
 * `/snapshot create` as the platform delivers it (a signed POST to recovery's interactions
 * endpoint) and as it holds the answer: a first response within 3 seconds, then the outcome as an
 * edit of the original message.
 */
describe('slash command /snapshot create', () => {
  const stack = new RecoveryStack();
  let dataSource: DataSource;
  let billing: BillingEventStream;

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    await connectInteractions(stack.platform, stack.recovery.url);
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  /** A guild with an owner, an admin, a moderator (MANAGE_GUILD) and a plain member; `crowd` more. */
  function seedGuild(crowd = 0) {
    return stack.platform.seedGuild({
      name: `Guild ${uuidv7().slice(-6)}`,
      owner: { id: OWNER, username: 'owner' },
      roles: [
        { name: 'Member', permissions: P.SendMessages },
        { name: 'Moderator', permissions: P.ManageGuild | P.KickMembers },
        { name: 'Admin', permissions: P.Administrator },
      ],
      channels: [{ name: 'general' }],
      members: [
        { username: 'admin', id: ADMIN, roles: ['Admin'] },
        { username: 'moderator', id: MODERATOR, roles: ['Moderator'] },
        { username: 'member', id: MEMBER, roles: ['Member'] },
        ...memberSpecs(crowd),
      ],
    });
  }

  async function registeredGuild(plan?: 'PRO' | 'ENTERPRISE', crowd = 0) {
    const seeded = seedGuild(crowd);
    const registered = await stack.call(stack.recovery, 'POST', '/api/v1/guilds', stack.user(OWNER), {
      platform_guild_id: seeded.guildId,
    });
    expect(registered.status).toBe(200);
    const guildId = registered.body.id as string;
    if (plan) {
      await billing.publish(new SubscriptionScenario(guildId).started(plan));
      await waitFor('the licence', async () => {
        const rows = await dataSource.query(`SELECT 1 FROM licensing.licenses WHERE guild_id = $1`, [
          guildId,
        ]);
        return rows.length === 1;
      });
    }
    return { seeded, guildId };
  }

  async function snapshotsOf(guildId: string): Promise<{ id: string; description: string | null }[]> {
    return dataSource.query(`SELECT id, description FROM recovery.snapshots WHERE guild_id = $1`, [guildId]);
  }

  /** Sends the command, expects the deferred ephemeral answer in time, and awaits the edit. */
  async function command(platformGuildId: string, userId: string, description?: string) {
    const sent = await stack.platform.sendCommand(snapshotCreate(platformGuildId, userId, description));
    expect(sent).toMatchObject({
      outcome: 'acknowledged',
      withinDeadline: true,
      initialResponse: { status: 200, type: 5, flags: 64 },
    });
    const edited = await stack.platform.interactionEdited(sent.id);
    expect(edited.edits).toHaveLength(1);
    expect(edited.originalMessage?.flags).toBe(64);
    return edited.edits[0].content;
  }

  it('answers the platform’s PING and refuses anything not signed with the application key', async () => {
    expect(await postInteraction(stack.recovery.url, { type: 1 })).toEqual({
      status: 200,
      body: { type: 1 },
    });
    const { seeded, guildId } = await registeredGuild('PRO');
    const signed = snapshotCommand(seeded.guildId, OWNER);
    const forged = '0'.repeat(128);
    const stale = String(Math.floor(Date.now() / 1000) - 3600);
    for (const options of [{ signature: forged }, { signature: 'not-hex' }, { timestamp: stale }]) {
      const refused = await postInteraction(stack.recovery.url, signed, options);
      expect(refused).toMatchObject({ status: 401, body: { code: 'ErrUnauthenticated' } });
    }
    const unsigned = await fetch(`${stack.recovery.url}/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
    });
    expect(unsigned.status).toBe(401);
    expect(await snapshotsOf(guildId)).toEqual([]);
  });

  it('answers at once for a guild of 100,000 members, then edits in the snapshot’s id', async () => {
    const { seeded, guildId } = await registeredGuild('PRO', 100_000);
    // The member list is 100 pages: without bucket limits the snapshot is as fast as it can be.
    stack.platform.setRateLimits({ perRoute: 'off' });
    try {
      const content = await command(seeded.guildId, MODERATOR, 'from chat');
      const [row] = await snapshotsOf(guildId);
      expect(row).toMatchObject({ description: 'from chat' });
      expect(content).toMatch(new RegExp(`^Snapshot saved: \`${row.id}\` \\(`));
    } finally {
      stack.platform.setRateLimits({ perRoute: DEFAULT_RATE_LIMITS.perRoute });
    }
  });

  it('records who took it, with or without a dashboard account', async () => {
    const { seeded, guildId } = await registeredGuild('ENTERPRISE');
    const moderator = stack.user(MODERATOR);
    const listed = await stack.call(stack.recovery, 'GET', `/api/v1/guilds/${guildId}/snapshots`, moderator);
    expect(listed.status).toBe(200);
    await dataSource.query(`DELETE FROM recovery.user_directory WHERE platform_user_id = $1`, [ADMIN]);
    expect(await command(seeded.guildId, MODERATOR)).toMatch(/^Snapshot saved/);
    expect(await command(seeded.guildId, ADMIN)).toMatch(/^Snapshot saved/);
    const rows = await dataSource.query(
      `SELECT trigger, created_by_user, created_by_platform_user_id FROM recovery.snapshots
        WHERE guild_id = $1 ORDER BY created_at`,
      [guildId],
    );
    expect(rows).toEqual([
      { trigger: 'manual', created_by_user: moderator.user_id, created_by_platform_user_id: MODERATOR },
      { trigger: 'manual', created_by_user: null, created_by_platform_user_id: ADMIN },
    ]);
  });

  it('edits in the plain words of a refusal: no MANAGE_GUILD, plan limit, FREE plan, unregistered', async () => {
    const { seeded, guildId } = await registeredGuild('PRO');
    expect(await command(seeded.guildId, MEMBER)).toMatch(/^No snapshot taken\. Forbidden/);
    expect(await command(seeded.guildId, OWNER)).toMatch(/^Snapshot saved/);
    // PRO has one manual slot: the second is refused with the plan limit's words.
    expect(await command(seeded.guildId, OWNER)).toMatch(
      /^No snapshot taken\. Conflict: All 1 manual snapshot slot/,
    );
    const free = await registeredGuild();
    expect(await command(free.seeded.guildId, OWNER)).toMatch(/^No snapshot taken\./);
    const unregistered = seedGuild();
    expect(await command(unregistered.guildId, OWNER)).toMatch(/not registered/);
    expect(await snapshotsOf(guildId)).toHaveLength(1);
    expect(await snapshotsOf(free.guildId)).toEqual([]);
  });

  it('answers a description over the limit at once, without deferring', async () => {
    const { seeded, guildId } = await registeredGuild('PRO');
    const sent = await stack.platform.sendCommand(snapshotCreate(seeded.guildId, OWNER, 'x'.repeat(501)));
    expect(sent).toMatchObject({
      outcome: 'acknowledged',
      initialResponse: { type: 4, flags: 64, content: expect.stringMatching(/at most 500 characters/) },
    });
    expect(await snapshotsOf(guildId)).toEqual([]);
  });

  it('takes one snapshot for an interaction delivered twice', async () => {
    const { seeded, guildId } = await registeredGuild('ENTERPRISE');
    const interaction = { ...snapshotCommand(seeded.guildId, OWNER), id: `${Date.now()}000001` };
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await postInteraction(stack.recovery.url, interaction)).toEqual({
        status: 200,
        body: { type: 5, data: { flags: 64 } },
      });
    }
    // The fake never issued this token, so the edit is refused: recovery logs it and goes on.
    await waitFor('the snapshot', async () => (await snapshotsOf(guildId)).length > 0);
    expect(await command(seeded.guildId, OWNER)).toMatch(/^Snapshot saved/);
    expect(await snapshotsOf(guildId)).toHaveLength(2);
  });

  it('keeps working when the platform refuses the edit', async () => {
    const { seeded, guildId } = await registeredGuild('ENTERPRISE');
    stack.platform.injectFailure({
      method: 'PATCH',
      path: /^\/webhooks\/\d+\/[^/]+\/messages\/@original$/,
      status: 404,
      code: 10015,
      message: 'Unknown Webhook',
    });
    const sent = await stack.platform.sendCommand(snapshotCreate(seeded.guildId, OWNER));
    expect(sent.outcome).toBe('acknowledged');
    await waitFor('the snapshot', async () => (await snapshotsOf(guildId)).length === 1);
    await waitFor('the refused edit', () =>
      stack.platform
        .requestLog()
        .some((request) => request.status === 404 && request.path.startsWith('/webhooks/')),
    );
    expect(stack.platform.interaction(sent.id)?.edits).toEqual([]);
    expect(await command(seeded.guildId, OWNER)).toMatch(/^Snapshot saved/);
  });

  it('answers an interaction type it does not handle with a problem body', async () => {
    const refused = await postInteraction(stack.recovery.url, { type: 3, data: {} });
    expect(refused).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
  });
});
