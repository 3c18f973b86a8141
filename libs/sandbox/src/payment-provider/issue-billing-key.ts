import { cardCodes } from './card-details';
import { kstTimestamp } from './kst-time';
import { ProviderHttpError, providerError } from './provider-error';
import type { ProviderStore } from './provider-store';
import { parseJsonObject, requireString } from './request-body';
import { randomId } from './random-id';
import { type BillingKeyIssueResponse, MERCHANT_ID } from './wire-format';

/**
 * `POST /v1/billing/authorizations/issue`: exchanges the single-use authKey from the card widget
 * for a billing key. `now` is whole seconds.
 */
export function issueBillingKey(raw: Buffer, store: ProviderStore, now: Date): BillingKeyIssueResponse {
  const body = parseJsonObject(raw);
  const authKey = requireString(body, 'authKey');
  const customerKey = requireString(body, 'customerKey');
  const pending = store.authKeys.get(authKey);
  if (!pending || pending.used) throw providerError.invalidAuthKey();
  if (pending.expired) throw providerError.expiredAuthKey();
  if (pending.customerKey !== customerKey) {
    throw providerError.invalidRequest('customerKey is not the one the authKey was issued for.');
  }
  pending.used = true;
  if (pending.issueRejection) {
    const { status, code, message } = pending.issueRejection;
    throw new ProviderHttpError(status, code, message);
  }
  const billingKey = randomId('bk_');
  store.billingKeys.set(billingKey, {
    billingKey,
    customerKey,
    cardNumber: pending.cardNumber,
    cardCompany: pending.cardCompany,
    issuedAt: now,
    deletedAt: null,
    ...(pending.firstChargeDelayMs === null ? {} : { firstChargeDelayMs: pending.firstChargeDelayMs }),
    ...(pending.firstChargeMishap ? { firstChargeMishap: pending.firstChargeMishap } : {}),
  });
  return {
    mId: MERCHANT_ID,
    customerKey,
    authenticatedAt: kstTimestamp(now),
    method: '카드',
    billingKey,
    cardCompany: pending.cardCompany,
    cardNumber: pending.cardNumber,
    card: {
      ...cardCodes(pending.cardCompany),
      number: pending.cardNumber,
      cardType: '신용',
      ownerType: '개인',
    },
  };
}
