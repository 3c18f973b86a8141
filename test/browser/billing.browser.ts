import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { api, capture, control, logIn, sandbox, stack, subscribePlan } from './support/dashboard';
import type { SandboxState } from './support/stack-info';

/**
 * Billing in the browser, against the stack BROWSER_STACK names: a payer subscribes
 * through the provider's JS SDK (the sandbox's stand-in, loaded from the URL billing hands out) and
 * its card page, upgrades, schedules a downgrade and takes it back,
 * cancels and takes that back; a declined card; the slow card whose first payment the webhook
 * settles; another administrator who sees the plan and who pays, and no controls. Each scenario
 * has a guild of its own (the demo guild is the restore suite's), owned by the demo owner.
 */
test.describe.configure({ mode: 'serial' });

const CARDS = {
  success: '4330 1234 1234 1234',
  declined: '4000 0000 0000 0002',
  slow: '4000 0000 0000 0077',
};

let state: SandboxState;
let context: BrowserContext;
let page: Page;
/** The guild of the main scenario and its other administrator. */
let guildId = '';
let adminId = '';

test.beforeAll(async ({ browser }) => {
  state = await sandbox();
  context = await browser.newContext();
  page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) throw new Error(`CSP: ${message.text()}`);
  });
  await logIn(page, state.demo.ownerId);
});

test.afterAll(async () => {
  await context.close();
});

/** A new guild of the demo owner with the bot in it, registered; its id and its other admin's. */
async function registeredGuild(name: string): Promise<{ guildId: string; adminId: string }> {
  const seeded = await control<{ guildId: string; adminId: string }>('/seed-guild', { name });
  const guild = await api<{ id: string }>(page, 'POST', '/api/v1/guilds', {
    platform_guild_id: seeded.guildId,
  });
  return { guildId: guild.id, adminId: seeded.adminId };
}

const guildPath = (id: string, page = '') => `${stack().url}/guilds/${id}${page}`;

/** The value of a fact (`<dt>` label, `<dd>` value) on the page. */
const fact = (label: string) =>
  page
    .locator('.fact')
    .filter({ has: page.getByRole('term').filter({ hasText: label }) })
    .getByRole('definition');

/** What the (sandbox) provider recorded: every charge it made, and how many billing keys it issued. */
const providerRecords = () =>
  control<{ charges: { orderId: string; status: string }[]; issued: number }>('/provider-records');

/** The provider's SDK script (its CDN path, which the sandbox and the fake serve it under too). */
const isSdkScript = (url: string) => new URL(url).pathname.endsWith('/v2/standard');

/** From the plans page through the provider's SDK to its card page (the checkout's only way there). */
async function openCardPage(id: string, plan: 'Pro' | 'Enterprise', name = ''): Promise<void> {
  await page.goto(guildPath(id, '/plans'));
  await page.getByRole('link', { name: `Subscribe to ${plan}` }).click();
  await expect(page.getByRole('heading', { name: `Subscribe to ${plan}` })).toBeVisible();
  const newCard = page.getByLabel(/Enter a new card/);
  if ((await newCard.count()) > 0) await newCard.check();
  if (name) await capture(page, name);
  const sdk = page.waitForResponse((response) => isSdkScript(response.url()));
  await page.getByRole('button', { name: 'Continue to card entry' }).click();
  expect((await sdk).status()).toBe(200);
  await expect(page.getByRole('heading', { name: 'Register a card' })).toBeVisible();
}

/**
 * From the plans page to the provider's card page and back with `card`, a new card, to the page
 * that says what confirming will do; nothing is paid until its "Confirm and pay" is clicked.
 */
async function registerNewCard(
  id: string,
  plan: 'Pro' | 'Enterprise',
  card: string,
  name = '',
): Promise<void> {
  await openCardPage(id, plan, name);
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry date (MM/YY)').fill('12/39');
  if (name) await capture(page, 'card-page');
  await page.getByRole('button', { name: 'Register the card' }).click();
  // Back on the checkout with its own id, and the provider's answer appended after it.
  await expect(page).toHaveURL(
    /\/checkout\?plan=[A-Z]+&checkout=[0-9a-f-]{36}&authKey=[^&]+&customerKey=user_/,
  );
  await expect(page.getByRole('heading', { name: new RegExp(`^Confirm: ${plan} for `) })).toBeVisible();
}

/** `registerNewCard`, then the click that confirms. */
async function payWithNewCard(
  id: string,
  plan: 'Pro' | 'Enterprise',
  card: string,
  name = '',
): Promise<void> {
  await registerNewCard(id, plan, card, name);
  const confirmed = page.waitForResponse((response) => response.url().endsWith('/api/v1/billing/confirm'));
  await page.getByRole('button', { name: 'Confirm and pay' }).click();
  await confirmed;
}

test('the plans page compares the plans from licensing and marks the current one', async () => {
  ({ guildId, adminId } = await registeredGuild('Billing Guild'));
  await page.goto(guildPath(guildId, '/plans'));
  await expect(page.getByRole('heading', { level: 1, name: 'Plans · Billing Guild' })).toBeVisible();
  const plans = await api<{ items: { name: string; price_krw: number }[] }>(page, 'GET', '/api/v1/plans');
  for (const plan of plans.items) {
    await expect(page.getByRole('heading', { level: 2, name: new RegExp(`^${plan.name}`) })).toBeVisible();
  }
  const free = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^Free/ }) });
  await expect(free.getByText('Current plan')).toBeVisible();
  const enterprise = page
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: /^Enterprise/ }) });
  await expect(enterprise.getByText('₩29,900')).toBeVisible();
  await expect(enterprise.getByText('Scheduled snapshots kept 30 days')).toBeVisible();
  await expect(enterprise.getByText('Audit log kept 365 days')).toBeVisible();
  await expect(enterprise.getByText('AntiNuke raid detection: included')).toBeAttached();
  await expect(
    enterprise.getByText(
      'Restores roles, channels, permission overwrites, server settings, members’ roles, bans, custom emojis, stickers, server images, AutoMod rules, webhooks and welcome screen & onboarding',
    ),
  ).toBeVisible();
  await expect(enterprise.getByText('Up to 1 GiB of emoji, sticker and server images kept')).toBeVisible();
  await expect(free.getByText('No emoji, sticker or server images kept')).toBeVisible();
  await expect(free.getByText('No restores')).toBeVisible();
  await expect(free.getByText('Audit log kept 30 days')).toBeVisible();
  await capture(page, 'plans');
});

test('subscribes PRO with the sandbox card, then upgrading to ENTERPRISE makes AntiNuke available', async () => {
  const chargesBefore = (await providerRecords()).charges.length;
  await registerNewCard(guildId, 'Pro', CARDS.success, 'checkout');
  // Back from the card form nothing is paid yet: the page says what will happen and waits.
  await expect(fact('Guild')).toHaveText('Billing Guild');
  await expect(fact('Plan')).toHaveText('Pro');
  await expect(fact('Amount')).toContainText('₩9,900 today');
  await expect(page.getByTestId('card-replacement')).toHaveText(
    /^(It becomes your card on file\.|It replaces your card ending \d{3}[\d*] .*)$/,
  );
  await capture(page, 'checkout-confirm');
  expect((await providerRecords()).charges.length).toBe(chargesBefore);
  await page.getByRole('button', { name: 'Confirm and pay' }).click();
  await expect(page).toHaveURL(/\/subscription\?welcome=1$/);
  await expect(page.getByText('Payment confirmed: Pro is active.')).toBeVisible();
  await expect(fact('Plan')).toHaveText('Pro');
  await expect(fact('Status')).toHaveText('Active');
  await expect(fact('Next charge')).toContainText('₩9,900');
  await expect(fact('Card')).toContainText('ending 123*');
  await expect(fact('Paid by')).toHaveText('You');
  const history = page.getByTestId('payment-history');
  await expect(history.getByRole('row')).toHaveCount(2);
  await expect(history.getByRole('cell', { name: /^sub_[0-9a-f-]{36}_001_r0$/ })).toBeVisible();
  await expect(history.getByRole('cell', { name: /^Paid/ })).toBeVisible();
  // The provider's receipt page for the charge, opened in a new tab.
  const receipt = history.getByRole('link', { name: 'Receipt' });
  await expect(receipt).toHaveAttribute('href', /\/receipt\/payments\/pay_[A-Za-z0-9_-]+$/);
  await expect(receipt).toHaveAttribute('target', '_blank');
  await capture(page, 'subscription');

  await expect
    .poll(
      async () =>
        (await api<{ plan: { code: string } }>(page, 'GET', `/api/v1/guilds/${guildId}/license`)).plan.code,
      { timeout: 30_000 },
    )
    .toBe('PRO');
  await page.goto(guildPath(guildId));
  await expect(fact('Plan')).toContainText('Pro');
  // AntiNuke is an Enterprise feature: on Pro the overview says it is not available.
  await expect(fact('AntiNuke')).toContainText('Not on the');

  await page.getByRole('navigation', { name: 'Guild' }).getByRole('link', { name: 'Subscription' }).click();
  // Said before the click: what the upgrade charges now (its own test below has the rest).
  await expect(
    page.getByText(/Upgrade to Enterprise: ₩[\d,]+ is charged now on your card ending/),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Upgrade to Enterprise' }).click();
  await expect(
    page.getByText(/^Upgraded to Enterprise: ₩[\d,]+ charged for the rest of this period\.$/),
  ).toBeVisible();
  await expect(fact('Plan')).toHaveText('Enterprise');
  await expect(fact('Next charge')).toContainText('₩29,900');
  await expect
    .poll(
      async () =>
        (await api<{ detection_available: boolean }>(page, 'GET', `/api/v1/guilds/${guildId}/antinuke`))
          .detection_available,
      { timeout: 30_000 },
    )
    .toBe(true);
  await page.goto(guildPath(guildId));
  await expect(fact('AntiNuke')).not.toContainText('Not on the');
});

test('an upgrade charges what the page said before the click, and the history lists it', async () => {
  const { guildId: upgradeGuild } = await registeredGuild('Billing Guild Upgrade');
  await payWithNewCard(upgradeGuild, 'Pro', CARDS.success);
  await expect(page).toHaveURL(/\/subscription\?welcome=1$/);
  const offer = page.getByText(/Upgrade to Enterprise: ₩[\d,]+ is charged now/);
  await expect(offer).toBeVisible();
  const quoted = /₩([\d,]+) is charged now/.exec((await offer.textContent()) ?? '')![1];
  await page.getByRole('button', { name: 'Upgrade to Enterprise' }).click();
  const outcome = page.getByRole('status').filter({ hasText: 'Upgraded to Enterprise' });
  await expect(outcome).toBeVisible();
  const charged = /₩([\d,]+) charged/.exec((await outcome.textContent()) ?? '')![1];
  // The charge at the click is at most the quote (less of the period is left by then).
  expect(Number(charged.replace(/,/g, ''))).toBeLessThanOrEqual(Number(quoted.replace(/,/g, '')));
  expect(Number(charged.replace(/,/g, ''))).toBeGreaterThan(0);
  await expect(fact('Plan')).toHaveText('Enterprise');
  const history = page.getByTestId('payment-history');
  const upgradeRow = history.getByRole('row').filter({ hasText: 'Upgrade to Enterprise (prorated)' });
  await expect(upgradeRow).toContainText(`₩${charged}`);
  await expect(upgradeRow.getByRole('cell', { name: /^upg_[0-9a-f-]{36}_001_r0$/ })).toBeVisible();
  await expect(upgradeRow).toContainText('Paid');
  await expect(history.getByRole('row').filter({ hasText: 'Pro, month 1' })).toContainText('₩9,900');
  await capture(page, 'subscription-upgraded');
});

test('a downgrade is scheduled for period end and can be taken back; so can a cancel', async () => {
  await page.goto(guildPath(guildId, '/subscription'));
  const periodEnd = page.getByText(/Downgrade to Pro: you keep Enterprise until/);
  await expect(periodEnd).toBeVisible();
  await page.getByRole('button', { name: 'Downgrade to Pro' }).click();
  await expect(fact('Scheduled change')).toContainText('Pro from');
  await expect(fact('Plan')).toHaveText('Enterprise');
  await expect(fact('Next charge')).toContainText('₩9,900');
  await capture(page, 'subscription-downgrade');

  await page.getByRole('button', { name: 'Keep Enterprise' }).click();
  await expect(fact('Scheduled change')).toHaveCount(0);
  await expect(fact('Next charge')).toContainText('₩29,900');

  await expect(
    page.getByText(/Cancel: nothing more is charged; the guild keeps Enterprise until/),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Cancel at period end' }).click();
  await expect(fact('Status')).toContainText('Canceled: ends on');
  await expect(fact('Next charge')).toHaveText('None');
  await capture(page, 'subscription-canceled');

  await page.getByRole('button', { name: 'Keep the subscription' }).click();
  await expect(fact('Status')).toHaveText('Active');
  await expect(fact('Next charge')).toContainText('₩29,900');
  const { items } = await api<{
    items: {
      plan: string;
      status: string;
      cancel_at_period_end: boolean;
      pending_downgrade_to: string | null;
    }[];
  }>(page, 'GET', `/api/v1/guilds/${guildId}/subscriptions`);
  expect(items[0]).toMatchObject({
    plan: 'ENTERPRISE',
    status: 'active',
    cancel_at_period_end: false,
    pending_downgrade_to: null,
  });
});

test('a declined card says why in plain words and leaves the plan as it was', async () => {
  const { guildId: declinedGuild } = await registeredGuild('Billing Guild Declined');
  await payWithNewCard(declinedGuild, 'Pro', CARDS.declined);
  const problem = page.getByRole('alert');
  await expect(problem).toContainText('Card authentication failed');
  await expect(problem).toContainText('The payment provider said: Declined by the card company.');
  await expect(problem).not.toContainText('{');
  await capture(page, 'checkout-declined');

  await page.getByRole('link', { name: 'Back to the plans' }).click();
  const free = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^Free/ }) });
  await expect(free.getByText('Current plan')).toBeVisible();
  await page.goto(guildPath(declinedGuild, '/subscription'));
  await expect(page.getByText('This guild is on the Free plan and has no subscription.')).toBeVisible();
});

test("the slow card: payment is processing, until the provider's answer settles it", async () => {
  test.setTimeout(180_000);
  const { guildId: slowGuild } = await registeredGuild('Billing Guild Slow');
  await payWithNewCard(slowGuild, 'Pro', CARDS.slow);
  // Billing gives up waiting (its 30 s time-out; 2 s on the distributed stack) and answers 202.
  const processing = page.getByTestId('payment-processing');
  await expect(processing).toBeVisible({ timeout: 60_000 });
  await expect(processing).toContainText('Payment is processing');
  await capture(page, 'checkout-processing');
  // The provider's late answer settles the payment, no reload: billing's look-up of the order (Toss
  // sends no webhook for a billing charge: standalone) or the webhook (the distributed stack's
  // signed envelope).
  await expect(page.getByText('Payment confirmed: the subscription is active.')).toBeVisible({
    timeout: 90_000,
  });
  await page.getByRole('link', { name: 'See the subscription' }).click();
  await expect(fact('Plan')).toHaveText('Pro');
  await expect(fact('Status')).toHaveText('Active');
  await expect(page.getByTestId('payment-history').getByRole('cell', { name: /^Paid/ })).toBeVisible();
});

test('canceling on the card page comes back to the checkout: nothing registered, nothing charged', async () => {
  const { guildId: canceledGuild } = await registeredGuild('Billing Guild Canceled');
  await openCardPage(canceledGuild, 'Pro');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/checkout\?.*code=PAY_PROCESS_CANCELED/);
  const problem = page.getByRole('alert');
  await expect(problem).toContainText('The card was not registered');
  await expect(problem).toContainText('The customer canceled the card registration.');
  // The way to the card form is still open (a card on file, if any, is offered first).
  const newCard = page.getByLabel(/Enter a new card/);
  if ((await newCard.count()) > 0) await newCard.check();
  await expect(page.getByRole('button', { name: 'Continue to card entry' })).toBeEnabled();
  await page.goto(guildPath(canceledGuild, '/subscription'));
  await expect(page.getByText('This guild is on the Free plan and has no subscription.')).toBeVisible();
});

test('a crafted checkout link charges nothing and replaces no card, and the page says why', async () => {
  // The payer pays for a guild with a card on file; the link is for another guild of theirs.
  const { guildId: paidGuild } = await registeredGuild('Billing Guild Crafted Paid');
  await subscribePlan(page, paidGuild, 'PRO');
  const { guildId: target } = await registeredGuild('Billing Guild Crafted');
  const cardOnFile = async () =>
    (
      await api<{ customer_key: string; saved_card: { card_last4: string } | null }>(
        page,
        'GET',
        `/api/v1/billing/prepare?guild_id=${target}&plan=PRO`,
      )
    ).saved_card?.card_last4;
  const { customer_key: customerKey } = await api<{ customer_key: string }>(
    page,
    'GET',
    `/api/v1/billing/prepare?guild_id=${target}&plan=PRO`,
  );
  const before = { card: await cardOnFile(), records: await providerRecords() };
  expect(before.card).toBeTruthy();
  // Someone else's card, registered with the provider under the payer's customer key.
  const { auth_key: planted } = await control<{ auth_key: string }>('/cards', {
    customer_key: customerKey,
    card_number: '9410987654325678',
  });
  const crafted = (query: string) =>
    `${guildPath(target, '/checkout')}?plan=PRO${query}&authKey=${planted}&customerKey=${customerKey}`;

  // As the page used to be fed: no checkout of this browser's, so nothing to confirm at all.
  await page.goto(crafted(''));
  const refused = page.getByRole('alert');
  await expect(refused).toContainText('This payment link was not started here');
  await expect(refused).toContainText('Nothing was charged and your card on file was not changed.');
  await expect(page.getByRole('button', { name: 'Confirm and pay' })).toHaveCount(0);
  await capture(page, 'checkout-crafted');

  // With a checkout id that is not the payer's: nothing happens until the click, which is refused.
  await page.goto(crafted('&checkout=0193a1b2-c3d4-4e5f-8a9b-0c1d2e3f4a5b'));
  await expect(page.getByTestId('card-replacement')).toContainText(
    `It replaces your card ending ${before.card}`,
  );
  await expect(page.getByTestId('card-replacement')).toContainText(/for your \d+ other subscriptions? too\./);
  expect(await providerRecords()).toEqual(before.records);
  await page.getByRole('button', { name: 'Confirm and pay' }).click();
  const problem = page.getByRole('alert');
  await expect(problem).toContainText('Checkout not found');
  await expect(problem).toContainText(
    'This payment was not confirmed: nothing was charged and your card on file was not changed.',
  );

  expect(await providerRecords()).toEqual(before.records);
  expect(await cardOnFile()).toBe(before.card);
  await page.goto(guildPath(target, '/subscription'));
  await expect(page.getByText('This guild is on the Free plan and has no subscription.')).toBeVisible();
});

test("the dashboard's CSP runs the provider's SDK from its origin, and refuses the same script from another", async () => {
  const { guildId: probeGuild } = await registeredGuild('Billing Guild CSP');
  const { provider_sdk_url: sdkUrl } = await api<{ provider_sdk_url: string }>(
    page,
    'GET',
    `/api/v1/billing/prepare?guild_id=${probeGuild}&plan=PRO`,
  );
  // The attack: the very same script, served by the very same server, under another origin
  // (localhost for 127.0.0.1), as an injected script tag would fetch it.
  const foreign = new URL(sdkUrl);
  foreign.hostname = foreign.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  const probe = await context.newPage();
  try {
    await probe.goto(guildPath(probeGuild, '/plans'));
    // Browser code as text: this suite is type-checked without the DOM's types.
    const outcome = await probe.evaluate<{
      sdk: string;
      sdkGlobal: string;
      other: string;
      violations: string[];
    }>(
      `(async (allowed, injected) => {
        const violations = [];
        document.addEventListener('securitypolicyviolation', (event) =>
          violations.push(event.effectiveDirective + ' ' + event.blockedURI));
        const load = (src) => new Promise((resolve) => {
          const script = document.createElement('script');
          script.src = src;
          script.onload = () => resolve('ran');
          script.onerror = () => resolve('refused');
          document.head.append(script);
        });
        const sdk = await load(allowed);
        const sdkGlobal = typeof window.TossPayments;
        const other = await load(injected);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { sdk, sdkGlobal, other, violations };
      })(${JSON.stringify(sdkUrl)}, ${JSON.stringify(foreign.toString())})`,
    );
    expect(outcome).toEqual({
      sdk: 'ran',
      sdkGlobal: 'function',
      other: 'refused',
      violations: [`script-src-elem ${foreign.toString()}`],
    });
  } finally {
    await probe.close();
  }
});

test('another administrator sees the plan and who pays, and no payment controls', async ({ browser }) => {
  const other = await browser.newContext();
  const adminPage = await other.newPage();
  try {
    await logIn(adminPage, adminId);
    await adminPage.goto(guildPath(guildId, '/subscription'));
    const adminFact = (label: string) =>
      adminPage
        .locator('.fact')
        .filter({ has: adminPage.getByRole('term').filter({ hasText: label }) })
        .getByRole('definition');
    await expect(adminFact('Plan')).toHaveText('Enterprise');
    // By the name the guild knows the payer by, once it has arrived (the demo owner is guild-owner).
    await expect(adminFact('Paid by')).toHaveText(`guild-owner (user ${state.demo.ownerId})`);
    await expect(adminPage.getByTestId('not-payer')).toBeVisible();
    await expect(adminPage.getByRole('button')).toHaveCount(1); // only "Log out"
    await expect(adminPage.getByRole('heading', { name: 'Change plan' })).toHaveCount(0);
    await capture(adminPage, 'subscription-not-payer');

    await adminPage.goto(guildPath(guildId, '/plans'));
    await expect(adminPage.getByRole('link', { name: /^Subscribe to/ })).toHaveCount(0);
  } finally {
    await other.close();
  }
});
