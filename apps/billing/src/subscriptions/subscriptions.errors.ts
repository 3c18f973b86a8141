import { defineNotFound, defineProblem } from '@lib/problem-details';

/** The problems of a guild's subscription and its payments. */
export const SubscriptionErrors = {
  notFound: defineNotFound('ErrSubscriptionNotFound', 'Subscription'),
  /** A manager of the guild who is not the payer tries to change what the payer pays. */
  notPayer: defineProblem({ code: 'ErrNotPayer', status: 403, title: 'Forbidden' }, () => ({
    detail: 'Only the payment owner may change this subscription.',
  })),
  exists: defineProblem({ code: 'ErrSubscriptionExists', status: 409, title: 'Conflict' }, () => ({
    detail: 'This guild already has a subscription that is active or being paid. Refresh the page to see it.',
  })),
  notActive: defineProblem({ code: 'ErrSubscriptionNotActive', status: 409, title: 'Conflict' }),
  paymentPending: defineProblem({ code: 'ErrPaymentPending', status: 409, title: 'Conflict' }),
  cancelScheduled: defineProblem({ code: 'ErrCancelScheduled', status: 409, title: 'Conflict' }),
  paymentRejected: defineProblem({ code: 'ErrPaymentRejected', status: 402, title: 'Payment failed' }),
  billingKeyMissing: defineProblem(
    { code: 'ErrBillingKeyMissing', status: 422, title: 'No card on file' },
    () => ({
      detail: 'The card for this subscription was removed. Register a card again before upgrading.',
    }),
  ),
  providerUnavailable: defineProblem({
    code: 'ErrProviderUnavailable',
    status: 503,
    title: 'Payment provider unavailable',
  }),
} as const;
