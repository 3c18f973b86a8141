import { defineNotFound, defineProblem } from '@lib/problem-details';

/** The answers of the webhook endpoint and of the operators' webhook tools. */
export const WebhookErrors = {
  unparseable: defineProblem({
    code: 'ErrUnparseableWebhook',
    status: 400,
    title: 'Webhook body not understood',
  }),
  invalidSignature: defineProblem({ code: 'ErrInvalidSignature', status: 401, title: 'Invalid signature' }),
  eventNotFound: defineNotFound('ErrWebhookEventNotFound', 'Webhook event'),
  alreadyRouted: defineProblem({ code: 'ErrWebhookAlreadyRouted', status: 409, title: 'Conflict' }),
  refused: defineProblem({ code: 'ErrWebhookRefused', status: 500, title: 'Webhook refused by billing' }),
  routingFailed: defineProblem({
    code: 'ErrWebhookRoutingFailed',
    status: 500,
    title: 'Webhook not processed',
  }),
} as const;
