import type { SeededGuild } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { openDataSource } from '../support/database';
import type { AppProcess } from '../support/app-process';
import { GatewayStack, type GatewayResponse, type LoggedIn } from '../support/gateway-stack';
import { OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

/** MANAGE_GUILD and nothing a restore exercises. */
const MANAGER = '200000000000000051';
/** MANAGE_GUILD with Manage Roles, Manage Channels, Ban Members and Manage Webhooks: may restore every scope. */
const DEPUTY = '200000000000000052';
/** A manager the owner demotes. */
const DEMOTED = '200000000000000053';
/** A manager the owner times out. */
const TIMED_OUT = '200000000000000054';
/** In none of the guilds. */
const STRANGER = '200000000000000055';

/** The owner's account acting on the platform through its API (a token of its own). */
const OWNER_TOKEN = 'restore-permissions-owner-token';

type Who = 'owner' | 'manager' | 'deputy' | 'demoted' | 'timedOut' | 'stranger';
type Body = Record<string, unknown>;

/**
 * A restore, or a snapshot's payload, is no way around the platform's own permissions: each scope
 * needs the permission its changes need on the platform, the owner hears of restores others start,
 * a manager demoted or timed out on the platform is refused at once, a burst of snapshot requests
 * stays within the plan's slots, and registering a guild one cannot manage costs the bot nothing.
 * Played against the running apps behind the gateway and the fake platform.
 */
describe('restores need the platform permissions they exercise', () => {
  const stack = new GatewayStack();
  let dataSource: DataSource;
  const users = {} as Record<Who, LoggedIn>;
  let seeded: SeededGuild;
  let guildId: string;
  let snapshotId: string;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    stack.platform.registerBotToken(OWNER_TOKEN, OWNER, 'owner');
    seeded = seedGuild();
    users.owner = await stack.login(OWNER);
    users.manager = await stack.login(MANAGER);
    users.deputy = await stack.login(DEPUTY);
    users.demoted = await stack.login(DEMOTED);
    users.timedOut = await stack.login(TIMED_OUT);
    users.stranger = await stack.login(STRANGER);
    guildId = await proGuild(seeded);
    snapshotId = (await ok(await call('owner', 'POST', `/api/v1/guilds/${guildId}/snapshots`, {})))
      .id as string;
  }, 300_000);

  afterAll(async () => {
    await stack.stop();
    await dataSource?.destroy();
  });

  function seedGuild(): SeededGuild {
    return seedProtectedGuild(stack.platform, `Access ${uuidv7().slice(-6)}`, 0, 0, undefined, (spec) => {
      spec.roles!.push(
        { name: 'Manager', permissions: P.ManageGuild | P.ViewChannel },
        {
          name: 'Deputy',
          permissions: P.ManageGuild | P.ManageRoles | P.ManageChannels | P.BanMembers | P.ManageWebhooks,
        },
      );
      spec.setup = { webhooks: [{ name: 'Deploys', channel: 'general' }] };
      spec.members!.push(
        { username: 'manager', id: MANAGER, roles: ['Manager'] },
        { username: 'deputy', id: DEPUTY, roles: ['Deputy'] },
        { username: 'demoted', id: DEMOTED, roles: ['Manager'] },
        { username: 'timed-out', id: TIMED_OUT, roles: ['Manager'] },
      );
    });
  }

  function call(who: Who, method: string, path: string, body?: unknown): Promise<GatewayResponse> {
    return stack.request(method, path, { token: users[who].token, body });
  }

  async function ok(response: GatewayResponse, status = 200): Promise<Body> {
    if (response.status !== status) throw new Error(`expected ${status}, got ${JSON.stringify(response)}`);
    return Promise.resolve(response.body);
  }

  /** Registered by the owner, on PRO (every restore scope, one manual snapshot slot). */
  async function proGuild(guild: SeededGuild): Promise<string> {
    const registered = await ok(
      await call('owner', 'POST', '/api/v1/guilds', { platform_guild_id: guild.guildId }),
    );
    const id = registered.id as string;
    const prepared = await ok(await call('owner', 'GET', `/api/v1/billing/prepare?guild_id=${id}&plan=PRO`));
    const customerKey = prepared.customer_key as string;
    await ok(
      await call('owner', 'POST', '/api/v1/billing/confirm', {
        checkout_id: prepared.checkout_id,
        auth_key: stack.provider.authorizeCard({ customerKey }),
        customer_key: customerKey,
        guild_id: id,
        plan_code: 'PRO',
      }),
    );
    await waitFor('the PRO licence', async () => {
      const license = await call('owner', 'GET', `/api/v1/guilds/${id}/license`);
      return (license.body.plan as { code?: string } | undefined)?.code === 'PRO';
    });
    return id;
  }

  /** A request to the platform's API as the owner (their client, not the bot). */
  async function asOwner(method: string, path: string, body?: unknown): Promise<void> {
    const response = await fetch(`${stack.platform.url}/api/v10${path}`, {
      method,
      headers: { authorization: `Bot ${OWNER_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  }

  const roleId = (name: string) => seeded.roles[name];

  async function restoreRows(): Promise<number> {
    const [{ count }] = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM recovery.restore_jobs WHERE guild_id = $1`,
      [guildId],
    );
    return count;
  }

  it('refuses each scope to a manager without its platform permission, naming both, and writes nothing', async () => {
    const before = await restoreRows();
    const approved = await ok(
      await call('owner', 'POST', '/api/v1/restore/preview', {
        snapshot_id: snapshotId,
        scope: ['roles', 'bans'],
      }),
    );
    for (const [scope, missing] of [
      ['roles', ['MANAGE_ROLES']],
      ['member_roles', ['MANAGE_ROLES']],
      ['channels', ['MANAGE_CHANNELS']],
      ['permission_overrides', ['MANAGE_CHANNELS', 'MANAGE_ROLES']],
      ['bans', ['BAN_MEMBERS']],
      // The onboarding needs Manage Roles beside the Manage Server the manager holds.
      ['onboarding', ['MANAGE_ROLES']],
      ['webhooks', ['MANAGE_WEBHOOKS']],
    ] as const) {
      const preview = await call('manager', 'POST', '/api/v1/restore/preview', {
        snapshot_id: snapshotId,
        scope: [scope],
      });
      expect([scope, preview.status, preview.body]).toEqual([
        scope,
        403,
        expect.objectContaining({
          code: 'ErrMissingPlatformPermission',
          scope,
          missing_permissions: missing,
        }),
      ]);
      expect(preview.headers.get('content-type')).toContain('application/problem+json');
      const start = await call('manager', 'POST', '/api/v1/restore/start', {
        snapshot_id: snapshotId,
        scope: [scope],
        approved_diff_hash: approved.diff_hash,
      });
      expect([scope, start.status, start.body.code]).toEqual([scope, 403, 'ErrMissingPlatformPermission']);
    }
    // Server settings need Manage Server, which the manager holds.
    await ok(
      await call('manager', 'POST', '/api/v1/restore/preview', {
        snapshot_id: snapshotId,
        scope: ['guild_settings'],
      }),
    );
    expect(await restoreRows()).toBe(before);
  });

  it('shows a snapshot’s payload only to whom every part of it is open', async () => {
    const path = `/api/v1/snapshots/${snapshotId}`;
    await ok(await call('manager', 'GET', path));
    const payload = await call('manager', 'GET', `${path}?include_payload=true`);
    expect(payload.status).toBe(403);
    expect(payload.body).toMatchObject({ code: 'ErrMissingPlatformPermission' });
    expect((await ok(await call('deputy', 'GET', `${path}?include_payload=true`))).payload).toBeDefined();
    expect((await ok(await call('owner', 'GET', `${path}?include_payload=true`))).payload).toBeDefined();
    // Its export is the payload too: a manager of the server alone may not take it away.
    const exported = await call('manager', 'GET', `${path}/export`);
    expect(exported.status).toBe(403);
    expect(exported.body).toMatchObject({ code: 'ErrMissingPlatformPermission' });
    expect((await ok(await call('deputy', 'GET', `${path}/export`))).payload).toBeDefined();
  });

  it('tells the owner when another manager starts a restore', async () => {
    const preview = await ok(
      await call('deputy', 'POST', '/api/v1/restore/preview', { snapshot_id: snapshotId, scope: ['roles'] }),
    );
    const started = await ok(
      await call('deputy', 'POST', '/api/v1/restore/start', {
        snapshot_id: snapshotId,
        scope: ['roles'],
        approved_diff_hash: preview.diff_hash,
      }),
      202,
    );
    const dm = await waitFor('the owner’s DM', () =>
      stack.platform
        .dmLog()
        .find((entry) => entry.recipientId === OWNER && entry.content.includes(started.id as string)),
    );
    expect(dm.content).toContain(`<@${DEPUTY}>`);
    await waitFor(
      'the restore to end',
      async () =>
        ['completed', 'failed'].includes(
          (await call('deputy', 'GET', `/api/v1/restore/${started.id as string}`)).body.status as string,
        ),
      { timeoutMs: 90_000, intervalMs: 200 },
    );
  });

  it('shows the new address of a webhook a restore made to the guild’s owner alone, in no DM', async () => {
    await asOwner('DELETE', `/webhooks/${seeded.setup.webhooks.Deploys}`);
    const dmsBefore = stack.platform.dmLog().length;
    const preview = await ok(
      await call('deputy', 'POST', '/api/v1/restore/preview', {
        snapshot_id: snapshotId,
        scope: ['webhooks'],
      }),
    );
    expect(preview.webhooks_to_create).toEqual([expect.objectContaining({ name: 'Deploys' })]);
    const started = await ok(
      await call('deputy', 'POST', '/api/v1/restore/start', {
        snapshot_id: snapshotId,
        scope: ['webhooks'],
        approved_diff_hash: preview.diff_hash,
      }),
      202,
    );
    const path = `/api/v1/restore/${started.id as string}`;
    const ended = await waitFor(
      'the restore to end',
      async () => {
        const job = (await call('deputy', 'GET', path)).body;
        return ['completed', 'failed'].includes(job.status as string) ? job : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(ended).toMatchObject({ status: 'completed', result_summary: { webhooks_created: 1 } });
    // The manager who started it sees which webhooks got new addresses, not the addresses.
    expect(ended.new_webhooks).toEqual([expect.objectContaining({ name: 'Deploys', address: null })]);
    const [remade] = (await ok(await call('owner', 'GET', path))).new_webhooks as Body[];
    expect(remade.address).toMatch(new RegExp(`/webhooks/${remade.webhook_id as string}/[\\w-]+$`));
    // The DMs of the restore count the webhook and never carry its address.
    const dms = await waitFor('the restore’s DMs', () => {
      const sent = stack.platform.dmLog().slice(dmsBefore);
      return sent.some((entry) => entry.content.includes('• 웹후크: 생성 1')) ? sent : undefined;
    });
    for (const dm of dms) expect(dm.content).not.toContain(remade.address as string);
  });

  /**
   * Another recovery replica follows the platform's gateway; the one behind the gateway does not:
   * what the follower sees must end the other's cached answers too.
   */
  describe('on the platform’s word, on every replica', () => {
    let follower: AppProcess;

    beforeAll(async () => {
      follower = await stack.startRecoveryProcess({ LIVE_SYNC_ENABLED: 'true', RECOVERY_ROLE: 'api' });
      // Live sync's shards are advisory locks of the whole database: another stack's live sync
      // (a concurrent test run) holds them until it stops.
      await waitFor(
        'the follower on the gateway',
        () =>
          stack.platform
            .gatewayConnections()
            .some((connection) => connection.userId === stack.platform.botUserId),
        { timeoutMs: 150_000, intervalMs: 250 },
      );
    }, 200_000);

    afterAll(() => follower?.stop());

    /**
     * Polls a guild route as `who` until it is refused, for at most 10 s: far under the 60 s an
     * answer used to be kept; only live sync's event can end it that early.
     */
    async function expectRefusedSoon(who: Who): Promise<void> {
      await waitFor(
        `${who} to be refused`,
        async () => (await call(who, 'GET', `/api/v1/guilds/${guildId}`)).status === 403,
        { timeoutMs: 10_000, intervalMs: 50 },
      );
    }

    it('refuses a manager demoted on the platform at once, not a minute later', async () => {
      await ok(await call('demoted', 'GET', `/api/v1/guilds/${guildId}`));
      await asOwner('DELETE', `/guilds/${seeded.guildId}/members/${DEMOTED}/roles/${roleId('Manager')}`);
      await expectRefusedSoon('demoted');
    });

    it('refuses a timed-out manager, as the platform does', async () => {
      await ok(await call('timedOut', 'GET', `/api/v1/guilds/${guildId}`));
      const until = new Date(Date.now() + 10 * 60_000).toISOString();
      await asOwner('PATCH', `/guilds/${seeded.guildId}/members/${TIMED_OUT}`, {
        communication_disabled_until: until,
      });
      await expectRefusedSoon('timedOut');
      await asOwner('PATCH', `/guilds/${seeded.guildId}/members/${TIMED_OUT}`, {
        communication_disabled_until: null,
      });
      await waitFor(
        'the lifted timeout to count',
        async () => (await call('timedOut', 'GET', `/api/v1/guilds/${guildId}`)).status === 200,
        { timeoutMs: 15_000, intervalMs: 50 },
      );
    });
  });

  it('stores no more than the plan’s slots from two hundred parallel snapshot requests', async () => {
    const other = seedGuild();
    const otherId = await proGuild(other);
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => call('owner', 'POST', `/api/v1/guilds/${otherId}/snapshots`, {})),
    );
    const [{ stored }] = await dataSource.query<{ stored: number }[]>(
      `SELECT count(*)::int AS stored FROM recovery.snapshots WHERE guild_id = $1 AND trigger = 'manual'`,
      [otherId],
    );
    // PRO keeps one manual snapshot.
    expect(stored).toBe(1);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const refusals = new Set(
      answers.filter((answer) => answer.status !== 200).map((a) => `${a.status} ${a.body.code as string}`),
    );
    expect(
      [...refusals].every((refusal) =>
        ['409 ErrSnapshotInProgress', '409 ErrPlanLimitExceeded'].includes(refusal),
      ),
    ).toBe(true);
  });

  it('refuses a registration by a user not in the guild without a single bot call', async () => {
    const other = seedGuild();
    const before = stack.platform.requestLog().length;
    const answer = await call('stranger', 'POST', '/api/v1/guilds', { platform_guild_id: other.guildId });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: 'ErrForbidden' });
    const calls = stack.platform.requestLog().slice(before);
    // At most the stranger's own guild list, with their token; nothing about the guild. (The
    // notifier's DMs of the tests before, which may land meanwhile, are not about it either.)
    const dms = ['/users/@me/channels', '/channels/:channel_id/messages'];
    expect(
      calls.filter((entry) => entry.route !== '/users/@me/guilds' && !dms.includes(entry.route ?? '')),
    ).toEqual([]);
  });
});
