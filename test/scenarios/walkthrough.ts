import { loginThroughGateway, requestGateway } from '../support/gateway-stack';
import { waitFor } from '../support/wait';

/**
 * The README's walkthrough ("Try it") as a scenario: log in with the platform, register the demo
 * guild, subscribe (manual snapshots and restores are paid features), snapshot it, break it,
 * preview, restore. It talks HTTP to the product's public
 * URL only; what a person does outside the product (being signed in on the platform, a raid, typing
 * a card into the provider's widget) is the `World`'s, so the same scenario runs against the
 * standalone product and the distributed one.
 */
export interface World {
  /** The product's public base URL (gateway). */
  url: string;
  demoGuild: { platformGuildId: string; ownerPlatformUserId: string };
  /** Damages the demo guild through the platform, as a raider would. */
  raid(): Promise<void>;
  /** The provider's card widget: the customer authenticates a card and gets the authKey. */
  authorizeCard(customerKey: string): Promise<string>;
}

export interface WalkthroughResult {
  token: string;
  guildId: string;
  snapshotId: string;
  jobId: string;
  subscriptionId: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const ALL_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];

export async function walkthrough(world: World): Promise<WalkthroughResult> {
  const token = await browserLogin(world.url);
  const api = (method: string, path: string, body?: unknown) => call(world.url, method, path, token, body);

  const me = expectStatus(await api('GET', '/api/v1/me'), 200);
  expectEqual(me.platform_user_id, world.demoGuild.ownerPlatformUserId, 'the logged-in user');

  const guild = expectStatus(
    await api('POST', '/api/v1/guilds', { platform_guild_id: world.demoGuild.platformGuildId }),
    200,
    201,
  );
  const guildId = guild.id as string;

  // Manual snapshots and restores are paid features: subscribe first (the sandbox's card widget).
  const prepared = expectStatus(
    await api('GET', `/api/v1/billing/prepare?guild_id=${guildId}&plan=PRO`),
    200,
  );
  const authKey = await world.authorizeCard(prepared.customer_key as string);
  const confirmed = expectStatus(
    await api('POST', '/api/v1/billing/confirm', {
      checkout_id: prepared.checkout_id,
      auth_key: authKey,
      customer_key: prepared.customer_key,
      guild_id: guildId,
      plan_code: 'PRO',
    }),
    200,
  );
  expectEqual(confirmed.status, 'active', 'the subscription');
  await waitFor('the licence to follow the subscription', async () => {
    const license = await api('GET', `/api/v1/guilds/${guildId}/license`);
    return (license.body.plan as { code?: string } | undefined)?.code === 'PRO';
  });
  const snapshot = expectStatus(
    await api('POST', `/api/v1/guilds/${guildId}/snapshots`, { description: 'before the raid' }),
    200,
    201,
  );
  const snapshotId = snapshot.id as string;

  await world.raid();

  const preview = expectStatus(
    await api('POST', '/api/v1/restore/preview', { snapshot_id: snapshotId, scope: ALL_SCOPES }),
    200,
  );
  if (pendingChanges(preview) === 0) throw new Error('the preview after the raid shows nothing to restore');

  const started = expectStatus(
    await api('POST', '/api/v1/restore/start', {
      snapshot_id: snapshotId,
      scope: ALL_SCOPES,
      approved_diff_hash: preview.diff_hash,
    }),
    202,
  );
  const jobId = started.id as string;
  const finished = await waitFor(
    'the restore to end',
    async () => {
      const job = await api('GET', `/api/v1/restore/${jobId}`);
      return ['completed', 'failed', 'canceled'].includes(job.body.status as string) ? job.body : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 200 },
  );
  expectEqual(finished.status, 'completed', `the restore (${JSON.stringify(finished.error_message)})`);

  // Restored: the same preview now has nothing left to do.
  const after = expectStatus(
    await api('POST', '/api/v1/restore/preview', { snapshot_id: snapshotId, scope: ALL_SCOPES }),
    200,
  );
  expectEqual(pendingChanges(after), 0, 'changes left after the restore');

  return { token, guildId, snapshotId, jobId, subscriptionId: confirmed.id as string };
}

/** After a restart: a new login finds the guild, its snapshot, the finished restore and the plan. */
export async function expectKept(world: World, earlier: WalkthroughResult): Promise<void> {
  const token = await browserLogin(world.url);
  const api = (method: string, path: string) => call(world.url, method, path, token);
  const snapshots = expectStatus(await api('GET', `/api/v1/guilds/${earlier.guildId}/snapshots`), 200);
  const ids = (snapshots.items as { id: string }[]).map((item) => item.id);
  if (!ids.includes(earlier.snapshotId))
    throw new Error(`snapshot ${earlier.snapshotId} is gone: ${ids.join()}`);
  const job = expectStatus(await api('GET', `/api/v1/restore/${earlier.jobId}`), 200);
  expectEqual(job.status, 'completed', 'the earlier restore');
  const license = expectStatus(await api('GET', `/api/v1/guilds/${earlier.guildId}/license`), 200);
  expectEqual((license.plan as { code: string }).code, 'PRO', 'the plan');
  const subscription = expectStatus(await api('GET', `/api/v1/subscriptions/${earlier.subscriptionId}`), 200);
  expectEqual(subscription.status, 'active', 'the subscription');
}

/** The login of a browser on this machine: whoever is signed in on the platform. */
export async function browserLogin(url: string): Promise<string> {
  return (await loginThroughGateway(url)).token;
}

/** A request to the product's public API, with a bearer token or none. */
export async function call(
  url: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<Answer> {
  const { status, body: answer } = await requestGateway(url, method, path, { token, body });
  return { status, body: answer };
}

function expectStatus(answer: Answer, ...expected: number[]): Record<string, unknown> {
  if (!expected.includes(answer.status)) {
    throw new Error(
      `expected ${expected.join(' or ')}, got ${answer.status}: ${JSON.stringify(answer.body)}`,
    );
  }
  return answer.body;
}

function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (actual !== expected) throw new Error(`${what}: expected ${String(expected)}, got ${String(actual)}`);
}

/** How many changes a restore preview lists. */
export function pendingChanges(diff: Record<string, unknown>): number {
  const lists = [
    'roles_to_create',
    'roles_to_update',
    'roles_to_delete',
    'channels_to_create',
    'channels_to_update',
    'channels_to_delete',
    'overrides_to_apply',
    'overrides_to_remove',
  ];
  const listed = lists.reduce((sum, key) => sum + ((diff[key] as unknown[] | undefined)?.length ?? 0), 0);
  return listed + Object.keys((diff.guild_settings_diff as object | undefined) ?? {}).length;
}
