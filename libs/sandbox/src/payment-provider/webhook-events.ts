import type { ProviderEventData, ProviderEventType, ProviderWebhookBody } from '@lib/contracts';
import { kstTimestamp } from './kst-time';
import type { BillingKeyRecord, StoredCharge } from './provider-state';
import { randomId } from './random-id';

export function webhookEvent<T extends ProviderEventType>(
  type: T,
  data: ProviderEventData[T],
  now = new Date(),
): ProviderWebhookBody<T> {
  return { eventId: randomId('evt_'), eventType: type, createdAt: kstTimestamp(now), data };
}

/** The event data for recorded state; each throws when the state does not support the event. */
export const eventData = {
  paymentDone(charge: StoredCharge): ProviderEventData['PAYMENT.DONE'] {
    if (!charge.payment?.approvedAt || charge.paymentKey === null) {
      throw new Error(`order ${charge.orderId} was not approved`);
    }
    return {
      paymentKey: charge.paymentKey,
      orderId: charge.orderId,
      status: 'DONE',
      approvedAt: charge.payment.approvedAt,
      totalAmount: charge.amount,
      customerKey: charge.customerKey,
    };
  },

  paymentFailed(charge: StoredCharge): ProviderEventData['PAYMENT.FAILED'] {
    if (!charge.failure) throw new Error(`the charge for order ${charge.orderId} did not fail`);
    return {
      paymentKey: charge.paymentKey,
      orderId: charge.orderId,
      status: 'ABORTED',
      failure: { ...charge.failure },
      customerKey: charge.customerKey,
    };
  },

  paymentCanceled(charge: StoredCharge): ProviderEventData['PAYMENT.CANCELED'] {
    if (!charge.cancellation || charge.paymentKey === null) {
      throw new Error(`payment for order ${charge.orderId} is not canceled; call cancelPayment() first`);
    }
    return {
      paymentKey: charge.paymentKey,
      orderId: charge.orderId,
      status: 'CANCELED',
      canceledAt: kstTimestamp(charge.cancellation.canceledAt),
      cancelReason: charge.cancellation.reason,
      customerKey: charge.customerKey,
    };
  },

  billingKeyDeleted(record: BillingKeyRecord): ProviderEventData['BILLING_KEY.DELETED'] {
    if (!record.deletedAt) {
      throw new Error(`billing key ${record.billingKey} is not deleted; call deleteBillingKey() first`);
    }
    return {
      billingKey: record.billingKey,
      customerKey: record.customerKey,
      deletedAt: kstTimestamp(record.deletedAt),
    };
  },
};
