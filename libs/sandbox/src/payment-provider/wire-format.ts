/** The merchant id the provider reports for test keys. */
export const MERCHANT_ID = 'tvivarepublica';
export const API_VERSION = '2022-11-16';

export interface ProviderCardSummary {
  issuerCode: string;
  acquirerCode: string;
  /** Masked, e.g. `43301234****123*`. */
  number: string;
  cardType: '신용';
  ownerType: '개인';
}

/** The answer to `POST /v1/billing/authorizations/issue`. */
export interface BillingKeyIssueResponse {
  mId: string;
  customerKey: string;
  authenticatedAt: string;
  method: '카드';
  billingKey: string;
  cardCompany: string;
  cardNumber: string;
  card: ProviderCardSummary;
}

/** The provider's Payment object: the answer to a charge and to `GET /v1/payments/orders/{orderId}`. */
export interface ProviderPayment {
  mId: string;
  version: typeof API_VERSION;
  paymentKey: string;
  orderId: string;
  orderName: string;
  /** `CANCELED` once `cancelPayment()` ran; then `balanceAmount` is 0. */
  status: 'DONE' | 'CANCELED';
  requestedAt: string;
  approvedAt: string;
  totalAmount: number;
  balanceAmount: number;
  suppliedAmount: number;
  vat: number;
  method: '카드';
  currency: 'KRW';
  customerKey: string;
  card: ProviderCardSummary & { approveNo: string; amount: number };
}
