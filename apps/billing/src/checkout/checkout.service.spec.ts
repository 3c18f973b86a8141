import type { CheckoutRow } from './checkouts.repository';
import { refuseUnlessConfirmable } from './checkout.service';

const USER = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const GUILD = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';

const checkout = (overrides: Partial<CheckoutRow> = {}): CheckoutRow => ({
  id: '9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f',
  user_id: USER,
  guild_id: GUILD,
  plan_code: 'PRO',
  customer_key: `user_${USER}`,
  created_at: new Date(),
  expires_at: new Date(Date.now() + 60_000),
  used_at: null,
  expired: false,
  ...overrides,
});

const request = { plan_code: 'PRO' as const, customer_key: `user_${USER}` };

describe(refuseUnlessConfirmable.name, () => {
  it('lets the user’s own unused, unexpired checkout for this guild, plan and customer key through', () => {
    expect(() => refuseUnlessConfirmable(checkout(), USER, GUILD, request)).not.toThrow();
  });

  it.each([
    ['an unknown id', null, {}, 'ErrCheckoutNotFound'],
    ["another user's, as if unknown", checkout({ user_id: GUILD }), {}, 'ErrCheckoutNotFound'],
    [
      "another user's, even used and expired",
      checkout({ user_id: GUILD, used_at: new Date(), expired: true }),
      {},
      'ErrCheckoutNotFound',
    ],
    ['a used one', checkout({ used_at: new Date() }), {}, 'ErrCheckoutUsed'],
    ['an expired one', checkout({ expired: true }), {}, 'ErrCheckoutExpired'],
    ["another guild's", checkout({ guild_id: USER }), {}, 'ErrCheckoutMismatch'],
    ["another plan's", checkout({ plan_code: 'ENTERPRISE' }), {}, 'ErrCheckoutMismatch'],
    ['another customer key', checkout(), { customer_key: 'user_other' }, 'ErrCheckoutMismatch'],
  ])('refuses %s', (_what, row, changes, code) => {
    let refusal: unknown;
    try {
      refuseUnlessConfirmable(row, USER, GUILD, { ...request, ...changes });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code });
  });
});
