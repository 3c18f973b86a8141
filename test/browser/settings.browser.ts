import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { api, capture, control, logIn, sandbox, stack, subscribePlan } from './support/dashboard';
import type { SandboxState } from './support/stack-info';

/**
 * The guild settings pages, as the demo owner goes through them on a guild of their own (so the
 * other suites' guild and plan do not matter): AntiNuke shown disabled on FREE, then set and read
 * back on ENTERPRISE with a per-field validation problem, switched off and users exempted; DM preferences saved and a muted kind
 * not sent; the test DM arriving on the platform; the audit log paged and filtered. Every page is
 * captured at phone and laptop widths and checked with axe-core.
 */
test.describe.configure({ mode: 'serial' });

const GUILD_NAME = `Settings ${Date.now().toString(36)}`;

let state: SandboxState;
let context: BrowserContext;
let page: Page;
let guildId = '';
/** The seeded guild's one member besides the owner (an administrator). */
let adminId = '';
const guildPath = (section: string) => `${stack().url}/guilds/${guildId}/${section}`;

/** The DMs the platform delivered to the owner. */
async function ownerDms(): Promise<{ content: string }[]> {
  return (await control<{ dms: { content: string }[] }>('/dms', { recipient: state.demo.ownerId })).dms;
}

interface AuditPage {
  items: { event_type: string }[];
  next_cursor: string | null;
}

/** The audit entries on the page, each as its sentence and its instant (sentences repeat). */
async function shownEntries(): Promise<string[]> {
  const sentences = await page.locator('.audit-entry .audit-sentence').allTextContents();
  const times = await Promise.all(
    (await page.locator('.audit-entry time').all()).map((time) => time.getAttribute('datetime')),
  );
  return sentences.map((sentence, index) => `${sentence}@${times[index]}`);
}

/** Every audit entry of the guild, through the API. */
async function auditTypes(): Promise<string[]> {
  const answer = await api<AuditPage>(page, 'GET', `/api/v1/guilds/${guildId}/audit-log?limit=200`);
  return answer.items.map((item) => item.event_type);
}

test.beforeAll(async ({ browser }) => {
  state = await sandbox();
  context = await browser.newContext();
  page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) throw new Error(`CSP: ${message.text()}`);
  });
  await logIn(page, state.demo.ownerId);
  const seeded = await control<{ guildId: string; adminId: string }>('/seed-guild', { name: GUILD_NAME });
  adminId = seeded.adminId;
  const registered = await api<{ id: string }>(page, 'POST', '/api/v1/guilds', {
    platform_guild_id: seeded.guildId,
  });
  guildId = registered.id;
});

test.afterAll(async () => {
  await context.close();
});

test('AntiNuke is shown, disabled and explained, on the Free plan', async () => {
  await page.goto(`${stack().url}/guilds/${guildId}`);
  await page.getByRole('navigation', { name: 'Guild' }).getByRole('link', { name: 'AntiNuke' }).click();
  await expect(page.getByRole('heading', { level: 1, name: `AntiNuke · ${GUILD_NAME}` })).toBeVisible();
  await expect(page.getByTestId('antinuke-status')).toHaveText('Off: not on this plan');
  await expect(page.getByTestId('antinuke-unavailable')).toContainText('not part of the Free plan');
  await expect(page.getByLabel('Actions by one person')).toBeDisabled();
  await expect(page.getByLabel('Actions by one person')).toHaveValue('3');
  await expect(page.getByLabel('Within (seconds)')).toHaveValue('10');
  await expect(page.getByLabel(/Quarantine the person behind an incident/)).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Save the setting' })).toHaveCount(0);
  await capture(page, 'antinuke-free');
});

test('DM preferences are saved, and a muted kind is not sent', async () => {
  await page.getByRole('link', { name: 'Notifications' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  const payments = page.getByRole('checkbox', { name: 'Payments' });
  await expect(payments).toBeChecked();
  await payments.uncheck();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Your notification settings are saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('checkbox', { name: 'Payments' })).not.toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'Restores' })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'AntiNuke incidents' })).toBeChecked();
  expect(await api(page, 'GET', '/api/v1/me/notification-preferences')).toMatchObject({
    payment_notifications: false,
    restore_notifications: true,
    incident_notifications: true,
  });

  // A payment: the subscription.started DM is the muted kind. The notifier has handled the event
  // once the audit log shows it; a snapshot's DM (always sent) queued after it comes through, and
  // the payment's never does.
  await subscribePlan(page, guildId, 'ENTERPRISE');
  await expect.poll(auditTypes, { timeout: 30_000 }).toContain('SubscriptionStarted');
  await api(page, 'POST', `/api/v1/guilds/${guildId}/snapshots`, { description: 'after subscribing' });
  const ours = async () => (await ownerDms()).filter((dm) => dm.content.includes(GUILD_NAME));
  await expect
    .poll(async () => (await ours()).some((dm) => dm.content.includes('스냅샷을 만들었습니다')), {
      timeout: 30_000,
    })
    .toBe(true);
  expect((await ours()).filter((dm) => dm.content.includes('구독이 시작되었습니다'))).toEqual([]);
});

test('the test DM arrives on the platform', async () => {
  const before = (await ownerDms()).length;
  await page.getByRole('button', { name: 'Send me a test DM' }).click();
  await expect(page.getByText(/^Sent at /)).toBeVisible();
  await expect(page.locator('.dm-text')).toContainText('테스트 메시지');
  const dms = await ownerDms();
  expect(dms.length).toBe(before + 1);
  expect(dms.at(-1)?.content).toContain('테스트 메시지');
  // Payments are muted: the DM lists what is still on.
  expect(dms.at(-1)?.content).toContain('지금 받는 알림: 복구, AntiNuke 경보');
  await capture(page, 'notifications');

  // A second one at once is refused, in plain words.
  await page.getByRole('button', { name: 'Send me a test DM' }).click();
  await expect(page.getByRole('alert')).toContainText('Too many test DMs');
  expect((await ownerDms()).length).toBe(before + 1);
});

test('AntiNuke settings are saved and read back on Enterprise, with problems shown per field', async () => {
  await expect
    .poll(
      async () =>
        (await api<{ workflow_running: boolean | null }>(page, 'GET', `/api/v1/guilds/${guildId}/antinuke`))
          .workflow_running,
      { timeout: 30_000 },
    )
    .toBe(true);
  await page.goto(guildPath('antinuke'));
  await expect(page.getByTestId('antinuke-status')).toHaveText('On: watching this guild');
  await expect(page.getByTestId('antinuke-unavailable')).toHaveCount(0);

  const threshold = page.getByLabel('Actions by one person');
  const window = page.getByLabel('Within (seconds)');
  await threshold.fill('1');
  await window.fill('20');
  await page.getByRole('button', { name: 'Save the setting' }).click();
  await expect(page.getByRole('alert')).toContainText('Request is not valid');
  await expect(threshold).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#antinuke-threshold-error')).toContainText('threshold');
  await expect(window).not.toHaveAttribute('aria-invalid', 'true');
  await capture(page, 'antinuke-invalid');

  await threshold.fill('5');
  await page.getByLabel(/Quarantine the person behind an incident/).check();
  await page.getByRole('button', { name: 'Save the setting' }).click();
  await expect(page.getByText('Saved. AntiNuke uses the new setting now.')).toBeVisible();
  await expect(threshold).not.toHaveAttribute('aria-invalid', 'true');

  await page.reload();
  await expect(page.getByLabel('Actions by one person')).toHaveValue('5');
  await expect(page.getByLabel('Within (seconds)')).toHaveValue('20');
  await expect(page.getByLabel(/Quarantine the person behind an incident/)).toBeChecked();
  expect(await api(page, 'GET', `/api/v1/guilds/${guildId}/antinuke`)).toMatchObject({
    threshold: 5,
    window_seconds: 20,
    auto_action_enabled: true,
  });
  await capture(page, 'antinuke-enterprise');
});

test('AntiNuke is switched off and users exempted, and both are kept after a reload', async () => {
  const NOBODY = '999999999999999999';
  const onOff = page.getByRole('switch', { name: 'Watch this guild for raids' });
  const idField = page.getByLabel('User id to exempt');
  await expect(onOff).toBeChecked();
  await expect(page.getByTestId('exempt-none')).toBeVisible();
  await onOff.uncheck();

  // A typo is refused beside the field, and announced.
  await idField.fill('12345');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.locator('[aria-live="assertive"] > #exempt-user-id-error')).toHaveText(
    'A user id is 17 to 20 digits.',
  );
  await expect(idField).toHaveAttribute('aria-invalid', 'true');
  await capture(page, 'antinuke-exempt-invalid');

  await idField.fill(adminId);
  await idField.press('Enter');
  await idField.fill(NOBODY);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(idField).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('exempt-user')).toHaveText([new RegExp(adminId), new RegExp(NOBODY)]);
  await page.getByRole('button', { name: 'Save the setting' }).click();
  await expect(page.getByText('Saved. AntiNuke uses the new setting now.')).toBeVisible();

  await page.reload();
  await expect(page.getByTestId('antinuke-status')).toHaveText('Off: switched off for this guild');
  await expect(page.getByRole('switch', { name: 'Watch this guild for raids' })).not.toBeChecked();
  // The member by name (the id beside it), the stranger by id alone.
  const shown = page.getByTestId('exempt-user');
  await expect(shown).toHaveCount(2);
  await expect(shown.nth(0)).toContainText(`admin-of-`);
  await expect(shown.nth(0)).toContainText(`(${adminId})`);
  await expect(shown.nth(1)).toHaveText(new RegExp(`^${NOBODY}`));
  expect(await api(page, 'GET', `/api/v1/guilds/${guildId}/antinuke`)).toMatchObject({
    enabled: false,
    exempt_user_ids: [adminId, NOBODY],
    threshold: 5,
  });
  await capture(page, 'antinuke-exempt');

  await page.getByRole('button', { name: `Remove ${NOBODY} from the exempt users` }).click();
  await page.getByRole('switch', { name: 'Watch this guild for raids' }).check();
  await page.getByRole('button', { name: 'Save the setting' }).click();
  await expect(page.getByText('Saved. AntiNuke uses the new setting now.')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('antinuke-status')).toHaveText('On: watching this guild');
  await expect(page.getByTestId('exempt-user')).toHaveCount(1);
  expect(await api(page, 'GET', `/api/v1/guilds/${guildId}/antinuke`)).toMatchObject({
    enabled: true,
    exempt_user_ids: [adminId],
  });
});

test('the audit log reads as sentences, a page at a time, by kind and date', async () => {
  // Enough history for two pages of ten: snapshots taken (and deleted, to free the slots).
  for (let i = 1; i <= 8; i++) {
    const taken = await api<{ id: string }>(page, 'POST', `/api/v1/guilds/${guildId}/snapshots`, {
      description: `audit ${i}`,
    });
    if (i < 8) await api(page, 'DELETE', `/api/v1/snapshots/${taken.id}`);
  }
  await expect.poll(async () => (await auditTypes()).length, { timeout: 30_000 }).toBeGreaterThan(10);
  const total = (await auditTypes()).length;

  await page.goto(`${stack().url}/guilds/${guildId}`);
  await page.getByRole('navigation', { name: 'Guild' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Audit log · ${GUILD_NAME}` })).toBeVisible();
  const entries = page.locator('.audit-entry');
  await expect(entries.first()).toBeVisible();
  // The newest first: the snapshot that is still there, by name.
  await expect(entries.first()).toContainText("You took the snapshot 'audit 8'");
  // Deletes and setting changes are entries too: the subscription is further back than a page of 20.
  await page.getByLabel('Per page').selectOption('50');
  await expect(page.getByText(/You subscribed to the Enterprise plan \(29,900 KRW\)/)).toBeVisible();
  // How long the guild's plan keeps its entries.
  await expect(page.getByTestId('audit-retention')).toHaveText(
    'Entries are kept 365 days on the Enterprise plan; older ones are deleted.',
  );
  await capture(page, 'audit-log');

  await page.getByLabel('Per page').selectOption('10');
  await expect(entries).toHaveCount(10);
  const firstPage = await shownEntries();
  const pages = page.getByRole('navigation', { name: 'Audit log pages' });
  await pages.getByRole('button', { name: 'Older' }).click();
  await expect(pages.getByText('Page 2')).toBeVisible();
  await expect(entries).toHaveCount(Math.min(10, total - 10));
  // The page number changes at once; the first page's entries stay shown until the second's
  // arrive (the query keeps its previous data), so the entries are read once they have changed.
  await expect
    .poll(async () => (await shownEntries()).filter((entry) => firstPage.includes(entry)))
    .toEqual([]);
  await pages.getByRole('button', { name: 'Newer' }).click();
  await expect(pages.getByText('Page 1')).toBeVisible();
  await expect.poll(shownEntries).toEqual(firstPage);

  await page.getByLabel('Kind').selectOption({ label: 'Snapshot taken' });
  await expect(entries).toHaveCount(9);
  for (const text of await entries.allTextContents()) expect(text).toMatch(/took (the|a) snapshot/);

  // Dates are the reader's days: today has everything, tomorrow nothing, backwards is a problem.
  const [yesterday, today, tomorrow] = await page.evaluate(() => {
    const day = (offset: number) => {
      const now = new Date();
      const date = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
      return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
    };
    return [day(-1), day(0), day(1)];
  });
  await page.getByLabel('From').fill(today);
  await page.getByLabel('To').fill(today);
  await expect(entries).toHaveCount(9);
  await page.getByLabel('From').fill(tomorrow);
  await page.getByLabel('To').fill('');
  await expect(page.getByText('No entry matches these filters.')).toBeVisible();
  await page.getByLabel('To').fill(yesterday);
  await expect(page.getByRole('alert')).toContainText('to must not be before from');
  await capture(page, 'audit-log-filtered');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(entries).toHaveCount(10);
});

test("an administrator's loosening waits for the owner, who refuses it; deletes are undone by the owner", async ({
  browser,
}) => {
  // The administrator, in a browser of their own, raises the threshold: held, not applied.
  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  try {
    await logIn(adminPage, adminId);
    await adminPage.goto(guildPath('antinuke'));
    await adminPage.getByLabel('Actions by one person').fill('9');
    await adminPage.getByRole('button', { name: 'Save the setting' }).click();
    await expect(adminPage.getByText(/Not applied yet: this loosens AntiNuke/)).toBeVisible();
    await expect(adminPage.getByTestId('antinuke-pending')).toContainText(
      "Only the server's owner can refuse it or apply it early.",
    );
  } finally {
    await adminContext.close();
    await control('/login-as', { platform_user_id: state.demo.ownerId });
  }

  // The owner sees who asked what, and refuses it.
  await page.goto(guildPath('antinuke'));
  const pending = page.getByTestId('antinuke-pending');
  await expect(pending).toContainText('A change that loosens AntiNuke is waiting');
  await expect(pending).toContainText(adminId);
  await expect(pending).toContainText('Actions by one person: 5 → 9 (weaker protection)');
  await expect(page.getByLabel('Actions by one person')).toHaveValue('5');
  await capture(page, 'antinuke-pending');
  await pending.getByRole('button', { name: 'Refuse' }).click();
  await expect(pending).toHaveCount(0);
  expect(await api(page, 'GET', `/api/v1/guilds/${guildId}/antinuke`)).toMatchObject({
    threshold: 5,
    pending_change: null,
  });

  // A snapshot deleted from the list comes back with "Undo delete".
  await api(page, 'POST', `/api/v1/guilds/${guildId}/snapshots`, { description: 'keep me' });
  await page.goto(guildPath('snapshots'));
  const saved = page.getByRole('table', { name: 'Snapshots, newest first' });
  const row = saved.getByRole('row', { name: /keep me/ });
  await row.getByRole('button', { name: /^Delete/ }).click();
  await expect(row).toContainText("The server's owner is told and can undo it");
  await row.getByRole('button', { name: 'Delete it' }).click();
  await expect(saved.getByRole('row', { name: /keep me/ })).toHaveCount(0);
  const deleted = page.getByRole('table', { name: /Deleted snapshots/ });
  const deletedRow = deleted.getByRole('row', { name: /keep me/ });
  await expect(deletedRow).toContainText(state.demo.ownerId);
  await capture(page, 'snapshots-deleted');
  await deletedRow.getByRole('button', { name: 'Undo delete' }).click();
  await expect(saved.getByRole('row', { name: /keep me/ })).toHaveCount(1);
  await expect(deleted.getByRole('row', { name: /keep me/ })).toHaveCount(0);
});
