import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SandboxState, StackInfo } from './stack-info';

export function stack(): StackInfo {
  const info = process.env.BROWSER_STACK_INFO;
  if (!info) throw new Error('BROWSER_STACK_INFO is not set: run the suite through its global setup');
  return JSON.parse(info) as StackInfo;
}

/** A call to the suite's control server over the fakes. */
export async function control<T = Record<string, unknown>>(route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack().controlUrl}${route}`, {
    method: body === undefined && route !== '/raid' ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? (route === '/raid' ? '{}' : undefined) : JSON.stringify(body),
  });
  const answer = (await response.json()) as T;
  if (!response.ok)
    throw new Error(`control ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

export const sandbox = () => control<SandboxState>('/state');

/** Logs in through the dashboard's button as `platformUserId` (signed in on the platform first). */
export async function logIn(page: Page, platformUserId: string): Promise<void> {
  await control('/login-as', { platform_user_id: platformUserId });
  await page.goto(`${stack().url}/login`);
  await page.getByRole('link', { name: 'Log in with Discord' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** The API as the page's own session calls it (the browser's cookie, the dashboard's Origin). */
export async function api<T = Record<string, unknown>>(
  page: Page,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  route: string,
  body?: unknown,
): Promise<T> {
  const response = await page.request.fetch(`${stack().url}${route}`, {
    method,
    headers: { origin: stack().url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok()) throw new Error(`${method} ${route} answered ${response.status()}: ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** A paid plan for the guild through the card widget's flow (the billing pages' own suite
 * covers those pages). */
export async function subscribePlan(page: Page, guildId: string, plan: 'PRO' | 'ENTERPRISE'): Promise<void> {
  const prepared = await api<{ checkout_id: string; customer_key: string }>(
    page,
    'GET',
    `/api/v1/billing/prepare?guild_id=${guildId}&plan=${plan}`,
  );
  const { auth_key } = await control<{ auth_key: string }>('/cards', { customer_key: prepared.customer_key });
  await api(page, 'POST', '/api/v1/billing/confirm', {
    checkout_id: prepared.checkout_id,
    auth_key,
    customer_key: prepared.customer_key,
    guild_id: guildId,
    plan_code: plan,
  });
  await expect
    .poll(
      async () =>
        (await api<{ plan: { code: string } }>(page, 'GET', `/api/v1/guilds/${guildId}/license`)).plan.code,
      {
        timeout: 30_000,
      },
    )
    .toBe(plan);
}

const WIDTHS = { phone: { width: 390, height: 844 }, laptop: { width: 1366, height: 768 } } as const;

/**
 * The page as it looks now, saved at phone and laptop widths (and in dark mode) under
 * test/browser/screenshots/<stack>/ (git-ignored), and checked with axe-core in light and dark:
 * no serious or critical violation.
 */
export async function capture(page: Page, name: string): Promise<void> {
  const folder = path.join(__dirname, '..', 'screenshots', stack().kind);
  mkdirSync(folder, { recursive: true });
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(WIDTHS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(folder, `${name}-${label}.png`), fullPage: true });
  }
  await checkAccessibility(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: path.join(folder, `${name}-laptop-dark.png`), fullPage: true });
  await checkAccessibility(page, `${name} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  if (original) await page.setViewportSize(original);
}

async function checkAccessibility(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      page: name,
      rule: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => node.target.join(' ')).slice(0, 5),
    }));
  expect(serious).toEqual([]);
}
