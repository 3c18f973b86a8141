import { RecoveryStack } from '../support/recovery-stack';
import { waitFor } from '../support/wait';

const RESERVE = 2;
const RETRY_MS = 300;

/**
 * Recovery's live sync against the fake platform's gateway when the platform will not take an
 * IDENTIFY: the session starts down to GATEWAY_IDENTIFY_RESERVE (held, readiness down, identified
 * once they are back), and a close code Discord wants no reconnect after (4014: stopped for good,
 * readiness down, no IDENTIFY again). The tests share one stack and run in order.
 */
describe('live sync: gateway sessions the platform refuses', () => {
  const stack = new RecoveryStack({
    liveSync: true,
    env: { GATEWAY_IDENTIFY_RESERVE: String(RESERVE), LIVE_SYNC_CONNECT_RETRY_MS: String(RETRY_MS) },
  });
  const identifies = () =>
    stack.platform.gatewayIdentifies().filter((attempt) => attempt.userId === stack.platform.botUserId);

  async function readiness(): Promise<{ status: number }> {
    const response = await fetch(`${stack.recovery.url}/health/ready`);
    await response.body?.cancel();
    return { status: response.status };
  }

  async function metrics(): Promise<string> {
    return (await fetch(`${stack.recovery.url}/metrics`)).text();
  }

  beforeAll(async () => {
    await stack.start();
    await waitFor('recovery identified', () => identifies().some((attempt) => attempt.outcome === 'ready'), {
      timeoutMs: 30_000,
    });
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
  });

  it('holds its IDENTIFY at the session-start reserve, readiness down, and identifies once starts are back', async () => {
    expect((await readiness()).status).toBe(200);
    // One session start used: 2 of 3 left, the reserve.
    stack.platform.setSharding({ sessionStartTotal: 3 });
    await stack.platform.disconnectGateway({ resumable: false });

    // Readiness answers a bare 503 (the problem filter keeps the check's message in); the alert
    // line and the metric say why.
    await waitFor('readiness down', async () => (await readiness()).status === 503);
    expect(stack.recovery.output()).toMatch(
      /"alert":"gateway_identify_reserve_reached".*"remaining":2.*"reserve":2/,
    );
    expect(await metrics()).toMatch(/^live_sync_identify_held\{shard="0"\} 1$/m);
    expect(identifies()).toHaveLength(1);

    // The day's session starts are back: the shard identifies at its next look.
    stack.platform.setSharding({});
    await waitFor('identified again', () => identifies().length === 2, { timeoutMs: 20_000 });
    expect(identifies().map((attempt) => attempt.outcome)).toEqual(['ready', 'ready']);
    await waitFor('readiness up', async () => (await readiness()).status === 200);
    expect(await metrics()).not.toMatch(/^live_sync_identify_held\{/m);
  }, 60_000);

  it('stops a shard closed with 4014 for good: readiness down, an alert metric, no IDENTIFY again', async () => {
    stack.platform.setMembersIntent(false);
    const before = identifies().length;
    await stack.platform.disconnectGateway({ resumable: false });

    await waitFor('readiness down', async () => (await readiness()).status === 503);
    expect(stack.recovery.output()).toMatch(/"alert":"gateway_shard_stopped".*"code":4014/);
    expect(await metrics()).toMatch(/^live_sync_shard_stopped\{shard="0",code="4014"\} 1$/m);
    // Many retry intervals (the old loop retried every LIVE_SYNC_CONNECT_RETRY_MS) and no IDENTIFY.
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 8));
    expect(
      identifies()
        .slice(before)
        .map((attempt) => attempt.outcome),
    ).toEqual([4014]);
    expect((await readiness()).status).toBe(503);
  }, 60_000);
});
