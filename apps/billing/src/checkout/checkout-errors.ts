import { DomainError, NotFoundError } from '@lib/problem-details';

/**
 * Why a confirm's `checkout_id` was refused (docs/behaviour.md §4.5). Each is answered before
 * anything is asked of the provider or written: no card is issued or replaced, nothing is charged.
 */

/** Unknown, or another user's: the same answer, so that nobody learns which ids exist. */
export class CheckoutNotFoundError extends NotFoundError {
  constructor() {
    super('ErrCheckoutNotFound', 'Checkout');
  }
}

export class CheckoutExpiredError extends DomainError {
  constructor() {
    super(
      'ErrCheckoutExpired',
      409,
      'Checkout expired',
      'This checkout has expired and nothing was charged. Start the checkout again from the plans page.',
    );
  }
}

export class CheckoutUsedError extends DomainError {
  constructor() {
    super(
      'ErrCheckoutUsed',
      409,
      'Checkout already used',
      'This checkout was already confirmed once and cannot pay again. See the guild’s subscription, or start a new checkout.',
    );
  }
}

/** The checkout was started for another guild, plan or customer key than the confirm names. */
export class CheckoutMismatchError extends DomainError {
  constructor(field: 'guild_id' | 'plan_code' | 'customer_key') {
    super(
      'ErrCheckoutMismatch',
      400,
      'Checkout does not match',
      `This checkout was started for another ${field.replace(/_(id|code|key)$/, '')}; nothing was charged. Start the checkout again.`,
      { field },
    );
  }
}
