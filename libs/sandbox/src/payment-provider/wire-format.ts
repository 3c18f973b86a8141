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

/** The Payment object (the charge answer and the look-ups' answer) is built in payment-object.ts. */
export type { ProviderPayment } from './payment-object';
