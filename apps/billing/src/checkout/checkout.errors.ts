import { defineNotFound, defineProblem } from '@lib/problem-details';

/**
 * Why a confirm's `checkout_id` was refused (docs/behaviour.md §4.5). Each is answered before
 * anything is asked of the provider or written: no card is issued or replaced, nothing is charged.
 */
export const CheckoutErrors = {
  /** Unknown, or another user's: the same answer, so that nobody learns which ids exist. */
  notFound: defineNotFound('ErrCheckoutNotFound', 'Checkout'),
  expired: defineProblem({ code: 'ErrCheckoutExpired', status: 409, title: 'Checkout expired' }, () => ({
    detail:
      'This checkout has expired and nothing was charged. Start the checkout again from the plans page.',
  })),
  used: defineProblem({ code: 'ErrCheckoutUsed', status: 409, title: 'Checkout already used' }, () => ({
    detail:
      'This checkout was already confirmed once and cannot pay again. See the guild’s subscription, or start a new checkout.',
  })),
  /** The checkout was started for another guild, plan or customer key than the confirm names. */
  mismatch: defineProblem(
    { code: 'ErrCheckoutMismatch', status: 400, title: 'Checkout does not match' },
    (field: 'guild_id' | 'plan_code' | 'customer_key') => ({
      detail: `This checkout was started for another ${field.replace(/_(id|code|key)$/, '')}; nothing was charged. Start the checkout again.`,
      extensions: { field },
    }),
  ),
  /** The provider would not issue a billing key for the card (`provider_code`, `provider_message`). */
  cardAuthenticationFailed: defineProblem(
    { code: 'ErrCardAuthenticationFailed', status: 400, title: 'Card authentication failed' },
    (extensions: { provider_code: string; provider_message: string }) => ({
      detail: 'The card could not be registered. Authenticate the card again, or use another one.',
      extensions,
    }),
  ),
} as const;
