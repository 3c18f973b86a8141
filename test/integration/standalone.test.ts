import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readmeWalkthrough } from '../scenarios/readme-walkthrough';
import { call, expectKept, type WalkthroughResult, type World } from '../scenarios/walkthrough';
import { errorLines } from '../support/log-lines';
import { StartupProbe } from '../support/startup-probe';
import { waitFor } from '../support/wait';

const REPOSITORY = path.resolve(__dirname, '../..');
/** `npm start`'s default: the test starts it as a new user would, with no variables at all. */
const PORT = 3000;
const URL = `http://127.0.0.1:${PORT}`;
const FIRST_START_MS = 180_000;

/**
 * The README's first command on a fresh machine: a clean copy of the repository (its files, and the
 * installed node_modules), `npm start` with nothing in the environment but PATH and HOME, then the
 * README's "Try it" commands exactly as printed. A second start finds everything again.
 */
describe('standalone mode: npm start in a clean copy', () => {
  let copy: string;
  let product: StartedProduct | undefined;
  let first: WalkthroughResult | undefined;

  beforeAll(() => {
    copy = cleanCopy();
  });

  afterAll(async () => {
    await product?.stop();
    // The embedded cluster belongs to the `postgres` user when run as root; rm as root removes it.
    rmSync(copy, { recursive: true, force: true });
  });

  it('starts with no configuration and runs the README walkthrough', async () => {
    product = await startProduct(copy);
    expect(product.output()).toContain('guildkeeper is running');
    expect(product.output()).toContain(`${URL}/docs`);
    expect(product.errors()).toContain('creating the database cluster');

    const docs = await fetch(`${URL}/docs/openapi.json`);
    expect(docs.status).toBe(200);
    first = await readmeWalkthrough().catch((error: unknown) => {
      const logs = `${product!.output()}\n${product!.errors()}`.slice(-4000);
      throw new Error(`${(error as Error).message}\n--- npm start's output ---\n${logs}`);
    });

    // Bad input gets an RFC 9457 body, here as everywhere.
    const refused = await call(URL, 'POST', '/sandbox/cards', undefined, { customer_key: 42 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 400, title: expect.any(String) });

    // What the services log reaches the output: a forged webhook's warning, from the intake
    // (mounted on the public port, as the gateway is) once everything is up. The sandbox provider
    // speaks Toss, so the intake takes Toss's unsigned bodies and billing looks the payment up at
    // the sandbox: it knows no such payment, and nothing is applied.
    const forged = await fetch(`${URL}/webhooks/provider`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        eventType: 'PAYMENT_STATUS_CHANGED',
        createdAt: '2026-11-22T15:04:05.000000',
        data: { paymentKey: 'pay_forged', orderId: 'order_forged', status: 'DONE' },
      }),
    });
    expect(forged.status).toBe(200);
    const unconfirmed = 'the provider does not confirm a webhook; nothing applied';
    await waitFor('the intake’s warning in the output', () => product!.output().includes(unconfirmed));
    // Every line names the service that wrote it, though one process runs them all and Nest's
    // static logger is the app created last (the gateway's).
    const serviceOf = (message: string) =>
      product!
        .output()
        .split('\n')
        .filter((line) => line.includes(`"msg":"${message}"`))
        .map((line) => (JSON.parse(line) as { service?: string }).service);
    expect(serviceOf(unconfirmed)).toEqual(['webhook-intake']);
  });

  it('a second start reuses the data: the same guild, snapshot, restore and subscription', async () => {
    expect(first).toBeDefined();
    await product!.stop();
    // Ctrl-C stopped everything cleanly: the embedded server is down, nothing failed on the way,
    // and neither the stop nor anything before it logged an error.
    expect(product!.errors()).toContain('SIGINT: stopping');
    expect(product!.errors()).not.toContain('stop failed');
    expect(errorLines(product!.errors())).toEqual([]);
    expect(errorLines(product!.output())).toEqual([]);
    expect(existsSync(path.join(copy, '.data/standalone/postgres/postmaster.pid'))).toBe(false);
    product = await startProduct(copy);
    expect(product.errors()).not.toContain('creating the database cluster');
    await expectKept(await sandboxWorld(), first!);
  });
});

interface StartedProduct {
  output(): string;
  errors(): string;
  /** Ctrl-C: SIGINT to the whole process group, as a terminal sends it; resolves once it exited. */
  stop(): Promise<void>;
}

/** The repository's files as git lists them (committed or not, never ignored ones), and node_modules. */
function cleanCopy(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'guildkeeper-standalone-'));
  // As root, the embedded server runs as `postgres`, which must be able to reach its folder.
  chmodSync(root, 0o755);
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPOSITORY,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    const source = path.join(REPOSITORY, file);
    if (!existsSync(source)) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    cpSync(source, path.join(root, file));
  }
  symlinkSync(path.join(REPOSITORY, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return root;
}

async function startProduct(cwd: string): Promise<StartedProduct> {
  // From the first moment: a connection the public port accepts is answered within a second.
  const probe = new StartupProbe(PORT).start();
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, so a stop reaches npm and the node process it runs.
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close': the process exited and its output (the node process's too) has ended.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const product: StartedProduct = {
    output: () => stdout,
    errors: () => stderr,
    stop: async () => {
      if (exitCode === undefined) process.kill(-child.pid!, 'SIGINT');
      await exited;
    },
  };
  try {
    await waitFor(
      'npm start to print its first screen',
      () => {
        if (exitCode !== undefined)
          throw new Error(`npm start exited with ${exitCode}:\n${stderr.slice(-3000)}`);
        return stdout.includes('guildkeeper is running');
      },
      { timeoutMs: FIRST_START_MS, intervalMs: 250 },
    );
    const ready = await fetch(`${URL}/health/ready`);
    expect(ready.status).toBe(200);
    await waitFor('the probe to be answered 200', () => probe.answered(200));
    const startup = await probe.stop();
    expect(startup).toMatchObject({ unanswered: 0, unavailableWithoutRetryAfter: 0 });
  } catch (error) {
    await probe.stop();
    await product.stop();
    throw new Error(`${String(error)}\n--- stderr ---\n${stderr.slice(-3000)}`);
  }
  return product;
}

/** The sandbox as a person uses it: what `GET /sandbox` describes, the raid and card routes. */
async function sandboxWorld(): Promise<World> {
  const sandbox = (await call(URL, 'GET', '/sandbox')).body as {
    chat_platform: { signed_in_user: string; demo_guild: { platform_guild_id: string } };
  };
  return {
    url: URL,
    demoGuild: {
      platformGuildId: sandbox.chat_platform.demo_guild.platform_guild_id,
      ownerPlatformUserId: sandbox.chat_platform.signed_in_user,
    },
    raid: async () => {
      const raid = await call(URL, 'POST', '/sandbox/raid');
      if (raid.status !== 200) throw new Error(`the sandbox raid answered ${raid.status}`);
    },
    authorizeCard: async (customerKey) => {
      const card = await call(URL, 'POST', '/sandbox/cards', undefined, { customer_key: customerKey });
      if (card.status !== 200) throw new Error(`the sandbox card widget answered ${card.status}`);
      return card.body.auth_key as string;
    },
  };
}
