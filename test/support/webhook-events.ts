import type { ProviderWebhookBody } from '@lib/contracts';
import type { FakePaymentProvider } from '@lib/sandbox';
import { v7 as uuidv7 } from 'uuid';

/**
 * A signed-ready PAYMENT.DONE for an order billing has never seen: intake records and routes it,
 * billing answers `ignored`, and nothing else moves. Each call is a new event with new ids.
 */
export function paymentDoneForUnknownOrder(
  provider: FakePaymentProvider,
  customerKey = 'user_x',
): ProviderWebhookBody<'PAYMENT.DONE'> {
  return provider.webhookEvent('PAYMENT.DONE', {
    paymentKey: `pay_${uuidv7()}`,
    orderId: `order_${uuidv7()}`,
    status: 'DONE',
    approvedAt: new Date().toISOString(),
    totalAmount: 9_900,
    customerKey,
  });
}
