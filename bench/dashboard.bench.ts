import 'reflect-metadata';
import { chromium, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { startStandalone } from '../standalone/standalone';
import { generatedGuild } from './generated-guild';

/**
 * `npm run bench:dashboard`: the dashboard's budgets, in Debian's Chromium on loopback,
 * against the product as `npm start` runs it (a fresh data folder):
 * - JavaScript for the first page (the shell's entry and what it preloads), gzipped: ≤ 150 KB;
 * - navigation to a usable guild picker (a new browser context each time, so nothing cached, until
 *   the list of guilds is on screen): ≤ 1 s;
 * - the restore preview of a guild at the platform's maxima (250 roles, 500 channels, with their
 *   overrides) everything deleted since the snapshot: from the answer's last byte to the diff on
 *   screen, ≤ 200 ms.
 * Prints the figures; exits 1 when one is over its budget.
 */
const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'apps/dashboard/dist');
const BUDGET = { firstPageKb: 150, pickerMs: 1_000, previewMs: 200 };
const PICKER_LOADS = 10;
const PREVIEW_RENDERS = 5;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** In the page (this file is not compiled for the DOM): when the preview is on screen. */
const RENDERED = `new Promise((resolve) => {
  const observer = new MutationObserver(() => {
    if (!document.querySelector('[data-testid="restore-preview"]')) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now()));
  });
  observer.observe(document.body, { childList: true, subtree: true });
})`;
/** In the page: when the preview's answer had fully arrived. */
const ANSWERED = `performance.getEntriesByType('resource')
  .find((entry) => entry.name.endsWith('/api/v1/restore/preview')).responseEnd`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const worst = (values: number[]) => Math.max(...values);
const verdict = (value: number, budget: number) => (value <= budget ? 'within budget' : 'OVER BUDGET');

/** The shell's entry script and the modules it preloads: what the first page runs. */
function firstPageJavaScript(): { files: { name: string; gzipKb: number }[]; totalKb: number } {
  const shell = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const sources = [
    ...shell.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
    ...shell.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
  ].map((match) => match[1]);
  const files = sources.map((source) => ({
    name: source,
    gzipKb: gzipSync(readFileSync(path.join(DIST, source))).length / 1024,
  }));
  return { files, totalKb: files.reduce((sum, file) => sum + file.gzipKb, 0) };
}

async function api(page: Page, url: string, method: 'GET' | 'POST', route: string, body?: unknown) {
  const response = await page.request.fetch(`${url}${route}`, {
    method,
    headers: { origin: url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok()) throw new Error(`${method} ${route}: ${response.status()} ${await response.text()}`);
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}

async function main(): Promise<void> {
  const chromiumPath = execFileSync('bash', [path.join(ROOT, 'scripts/chromium.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  execFileSync(
    process.execPath,
    ['-r', '@swc-node/register', 'apps/dashboard/scripts/build.ts', '--if-stale'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );

  const firstPage = firstPageJavaScript();
  const lines = [
    `first-page JavaScript: ${firstPage.totalKb.toFixed(1)} KB gzipped (${firstPage.files
      .map((file) => `${file.name} ${file.gzipKb.toFixed(1)} KB`)
      .join(', ')}); budget ${BUDGET.firstPageKb} KB: ${verdict(firstPage.totalKb, BUDGET.firstPageKb)}`,
  ];
  let over = firstPage.totalKb > BUDGET.firstPageKb;

  const dataDir = mkdtempSync(path.join(tmpdir(), 'guildkeeper-bench-dashboard-'));
  const standalone = await startStandalone({
    env: {
      LOG_LEVEL: 'error',
      RATE_LIMIT_IP_PER_MINUTE: '100000',
      RATE_LIMIT_SESSION_PER_MINUTE: '100000',
      LIVE_SYNC_ENABLED: 'false',
    },
    dataDir,
    port: 0,
    host: '127.0.0.1',
    log: () => undefined,
  });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  try {
    const { url } = standalone;
    const platform = standalone.sandbox!.platform!;
    const provider = standalone.sandbox!.provider!;
    const owner = standalone.sandbox!.demo!.ownerId;

    // A guild at the platform's maxima, owned by the demo owner: 248 roles of its own, @everyone
    // and the bot's make 250; 20 categories of 24 channels and the categories make 500 channels.
    const maxima = platform.seedGuild({
      ...generatedGuild({
        name: 'Guild at the maxima',
        customRoles: 248,
        categories: 20,
        channelsPerCategory: 24,
        members: 40,
      }),
      owner: { id: owner },
    });
    const login = await browser.newContext();
    const page = await login.newPage();
    await page.goto(`${url}/login`);
    await page.getByRole('link', { name: 'Log in with Discord' }).click();
    await page.getByRole('list', { name: 'Guilds you can manage' }).waitFor();
    const { storageState } = { storageState: await login.storageState() };

    // Navigation to a usable picker, cold each time (a new context: no cache), logged in.
    const pickerMs: number[] = [];
    for (let i = 0; i < PICKER_LOADS; i++) {
      const context = await browser.newContext({ storageState });
      const fresh = await context.newPage();
      const started = Date.now();
      await fresh.goto(`${url}/`);
      await fresh
        .getByRole('list', { name: 'Guilds you can manage' })
        .getByRole('listitem')
        .first()
        .waitFor();
      pickerMs.push(Date.now() - started);
      await context.close();
    }
    lines.push(
      `navigation to a usable guild picker: median ${median(pickerMs)} ms, worst ${worst(pickerMs)} ms over ${PICKER_LOADS} cold loads; budget ${BUDGET.pickerMs} ms: ${verdict(median(pickerMs), BUDGET.pickerMs)}`,
    );
    over ||= median(pickerMs) > BUDGET.pickerMs;

    // The maxima guild registered, on a plan with manual snapshots and restores, snapshotted; then
    // everything but @everyone and the bot's role deleted, so the preview recreates all of it.
    const guild = await api(page, url, 'POST', '/api/v1/guilds', { platform_guild_id: maxima.guildId });
    const guildId = guild.id as string;
    const prepared = await api(
      page,
      url,
      'GET',
      `/api/v1/billing/prepare?guild_id=${guildId}&plan=ENTERPRISE`,
    );
    const authKey = provider.authorizeCard({ customerKey: prepared.customer_key as string });
    await api(page, url, 'POST', '/api/v1/billing/confirm', {
      auth_key: authKey,
      customer_key: prepared.customer_key,
      guild_id: guildId,
      plan_code: 'ENTERPRISE',
    });
    for (let tries = 0; ; tries++) {
      const license = await api(page, url, 'GET', `/api/v1/guilds/${guildId}/license`);
      if ((license.plan as { code: string }).code === 'ENTERPRISE') break;
      if (tries > 100) throw new Error('the licence did not follow the subscription');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const snapshot = await api(page, url, 'POST', `/api/v1/guilds/${guildId}/snapshots`, {
      description: 'maxima',
    });
    platform.mutate(maxima.guildId, (state) => {
      state.roles = state.roles.filter((role) => role.id === state.id || role.id === maxima.botRoleId);
      state.channels = [];
      state.members = state.members.filter(
        (member) => member.user_id === owner || member.roles.includes(maxima.botRoleId),
      );
    });

    await page.goto(`${url}/guilds/${guildId}/restore?snapshot=${snapshot.id as string}`);
    const renders: number[] = [];
    let counted = '';
    for (let i = 0; i < PREVIEW_RENDERS; i++) {
      await page.evaluate('performance.clearResourceTimings()');
      // Until the preview's node is in the document, and the frame after it (painted).
      const rendered = page.evaluate<number>(RENDERED);
      await page.getByRole('button', { name: 'Preview the restore' }).click();
      const at = await rendered;
      const answered = await page.evaluate<number>(ANSWERED);
      renders.push(Math.round(at - answered));
      counted = (await page.locator('table.counts').innerText()).replace(/\s+/g, ' ');
    }
    lines.push(
      `preview at the maxima (${counted}): rendered ${median(renders)} ms after the answer (median; worst ${worst(renders)} ms over ${PREVIEW_RENDERS}); budget ${BUDGET.previewMs} ms: ${verdict(median(renders), BUDGET.previewMs)}`,
    );
    over ||= median(renders) > BUDGET.previewMs;
    await login.close();
  } finally {
    await browser.close();
    await standalone.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exit(over ? 1 : 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:dashboard failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(2);
});
