import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingStack } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { ADMIN, OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

/**
 * Checkouts: a confirm is only ever the one the payer's own checkout started. A checkout
 * id that is forged, another user's, expired, already used, or for another guild, plan or customer
 * key is refused with its problem code before the provider is asked anything: no billing key
 * issued, no card on file replaced, nothing charged, nothing written.
 */
describe('checkout ids', () => {
  const stack = new BillingStack();
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await dataSource?.destroy();
  });

  const owner = () => stack.user(OWNER);
  type User = ReturnType<typeof owner>;

  async function prepare(user: User, guildId: string, plan = 'PRO') {
    const prepared = await stack.callBilling(
      'GET',
      `/api/v1/billing/prepare?guild_id=${guildId}&plan=${plan}`,
      user,
    );
    expect(prepared.status).toBe(200);
    return {
      checkoutId: prepared.body.checkout_id as string,
      customerKey: prepared.body.customer_key as string,
    };
  }

  /** A confirm with a new card (a card number of its own, so a replaced card would show). */
  function confirm(user: User, body: { checkout_id: string; guild_id: string; plan_code?: string }) {
    const customerKey = `user_${user.user_id}`;
    const authKey = stack.provider.authorizeCard({ customerKey, cardNumber: '5555666677778888' });
    stack.authKeys.push(authKey);
    return stack.callBilling('POST', '/api/v1/billing/confirm', user, {
      auth_key: authKey,
      customer_key: customerKey,
      plan_code: 'PRO',
      ...body,
    });
  }

  /** What a refused confirm must leave as it was. */
  async function footprint(user: User) {
    const [row] = await dataSource.query<Record<string, unknown>[]>(
      `SELECT (SELECT count(*) FROM billing.subscriptions WHERE payer_user_id = $1)::int AS subscriptions,
              (SELECT count(*) FROM billing.payment_attempts a JOIN billing.subscriptions s ON s.id = a.subscription_id
                WHERE s.payer_user_id = $1)::int AS attempts,
              (SELECT row_to_json(k) FROM (SELECT card_last4, status, updated_at FROM billing.billing_keys
                WHERE user_id = $1) k) AS card,
              (SELECT count(*) FROM billing.outbox WHERE envelope->>'type' = 'SubscriptionCardChanged'
                AND envelope->'payload'->>'payer_user_id' = $1::text)::int AS card_changes,
              (SELECT count(*) FROM billing.checkouts WHERE user_id = $1 AND used_at IS NOT NULL)::int AS used`,
      [user.user_id],
    );
    return {
      ...row,
      providerRequests: stack.provider.requestLog().length,
      charges: stack.provider.charges().length,
    };
  }

  it('refuses a forged, another user’s, expired or mismatched checkout id, each with its code, and writes nothing', async () => {
    const payer = owner();
    // The payer already pays for a guild with a card on file: a forged confirm must not replace it.
    const { guildId: paidGuild } = await stack.registeredGuild(`Paid ${uuidv7().slice(-6)}`);
    expect((await stack.subscribe(payer, paidGuild)).status).toBe(200);
    const { guildId } = await stack.registeredGuild(`Target ${uuidv7().slice(-6)}`);
    const { guildId: otherGuild } = await stack.registeredGuild(`Other ${uuidv7().slice(-6)}`);

    const admins = await prepare(stack.user(ADMIN), guildId);
    const expired = await prepare(payer, guildId);
    await dataSource.query(
      `UPDATE billing.checkouts SET created_at = now() - interval '1 hour', expires_at = now() - interval '1 minute'
        WHERE id = $1`,
      [expired.checkoutId],
    );
    const forOtherGuild = await prepare(payer, otherGuild);
    const forEnterprise = await prepare(payer, guildId, 'ENTERPRISE');
    const before = await footprint(payer);

    const refusals: [string, ReturnType<typeof confirm>, object][] = [
      [
        'forged',
        confirm(payer, { checkout_id: randomUUID(), guild_id: guildId }),
        { status: 404, body: { code: 'ErrCheckoutNotFound' } },
      ],
      [
        "another user's",
        confirm(payer, { checkout_id: admins.checkoutId, guild_id: guildId }),
        { status: 404, body: { code: 'ErrCheckoutNotFound' } },
      ],
      [
        'expired',
        confirm(payer, { checkout_id: expired.checkoutId, guild_id: guildId }),
        { status: 409, body: { code: 'ErrCheckoutExpired' } },
      ],
      [
        "another guild's",
        confirm(payer, { checkout_id: forOtherGuild.checkoutId, guild_id: guildId }),
        { status: 400, body: { code: 'ErrCheckoutMismatch', field: 'guild_id' } },
      ],
      [
        "another plan's",
        confirm(payer, { checkout_id: forEnterprise.checkoutId, guild_id: guildId, plan_code: 'PRO' }),
        { status: 400, body: { code: 'ErrCheckoutMismatch', field: 'plan_code' } },
      ],
    ];
    for (const [what, answer, expected] of refusals) {
      const got = await answer;
      expect({ what, ...got }).toMatchObject({ what, ...expected });
      expect(got.contentType).toContain('application/problem+json');
    }
    // Missing, or not an id at all: the request is not valid.
    const missing = await stack.callBilling('POST', '/api/v1/billing/confirm', payer, {
      customer_key: `user_${payer.user_id}`,
      guild_id: guildId,
      plan_code: 'PRO',
    });
    expect(missing).toMatchObject({
      status: 400,
      body: { code: 'ErrValidation', errors: [expect.objectContaining({ field: 'checkout_id' })] },
    });
    expect(await footprint(payer)).toEqual(before);
  });

  it('a checkout is used once: a second confirm with it is refused, and of concurrent ones only one goes on', async () => {
    const payer = owner();
    const { guildId } = await stack.registeredGuild(`Once ${uuidv7().slice(-6)}`);
    // Taken by a confirm the card company then refused: the checkout is spent all the same.
    const spent = await prepare(payer, guildId);
    const customerKey = `user_${payer.user_id}`;
    const declined = await stack.callBilling('POST', '/api/v1/billing/confirm', payer, {
      checkout_id: spent.checkoutId,
      auth_key: stack.provider.authorizeCard({
        customerKey,
        issueRejection: { code: 'REJECT_CARD_COMPANY' },
      }),
      customer_key: customerKey,
      guild_id: guildId,
      plan_code: 'PRO',
    });
    expect(declined).toMatchObject({ status: 400, body: { code: 'ErrCardAuthenticationFailed' } });
    const before = await footprint(payer);
    const reused = await confirm(payer, { checkout_id: spent.checkoutId, guild_id: guildId });
    expect(reused).toMatchObject({ status: 409, body: { code: 'ErrCheckoutUsed' } });
    expect(await footprint(payer)).toEqual(before);

    const issues = () =>
      stack.provider.requestLog().filter((request) => request.path === '/v1/billing/authorizations/issue')
        .length;
    const issuedBefore = issues();
    const { checkoutId } = await prepare(payer, guildId);
    const answers = await Promise.all(
      [1, 2, 3].map(() => confirm(payer, { checkout_id: checkoutId, guild_id: guildId })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    for (const answer of answers.filter((candidate) => candidate.status === 409)) {
      expect(answer.body).toMatchObject({ code: 'ErrCheckoutUsed' });
    }
    expect(issues()).toBe(issuedBefore + 1);
    const [{ count }] = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM billing.subscriptions WHERE guild_id = $1`,
      [guildId],
    );
    expect(count).toBe(1);
  });

  it('logs the card form’s return address without its authKey', async () => {
    const before = stack.billing.output().length;
    const authKey = `ak_${randomUUID().replace(/-/g, '')}`;
    const address = `/guilds/${randomUUID()}/checkout?plan=PRO&checkout=${randomUUID()}&authKey=${authKey}&customerKey=user_x`;
    const answer = await stack.callBilling('GET', address, owner());
    expect(answer.status).toBe(404);
    // The line is written once the answer has gone out.
    await waitFor('the request line', () =>
      stack.billing.output().slice(before).includes('/checkout?plan=PRO'),
    );
    const logs = stack.billing.output().slice(before);
    expect(logs).toContain('authKey=[redacted]&customerKey=user_x');
    expect(logs).not.toContain(authKey);
    for (const key of stack.authKeys) expect(stack.billing.output()).not.toContain(key);
  });
});
