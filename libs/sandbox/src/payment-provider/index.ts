export { CARD_WIDGET_PATH, TEST_CARDS } from './card-widget-page';
export { SDK_SCRIPT_PATH, sdkScript } from './sdk-script';
export type { ChargeFailureRule, ChargeRejectionRule, LostAnswerRule } from './charge-rejections';
export { RECEIPT_PATH } from './payment-object';
export {
  FakePaymentProvider,
  type AuthorizeCardOptions,
  type FakePaymentProviderOptions,
  type FakeProviderState,
  type SendWebhookOptions,
} from './fake-payment-provider';
export type { ProviderOutage } from './outage-injector';
export type { ProviderErrorBody } from './provider-error';
export type {
  BillingKeyRecord,
  ChargeRecord,
  PaymentRequestRecord,
  ProviderFailure,
  WebhookDelivery,
} from './provider-state';
export type { WebhookResponse } from './webhook-dispatcher';
export type { SignatureOptions } from './webhook-signature';
export { TOSS_TRANSMISSION_HEADERS, resendDelaysMs, tossCreatedAt } from './webhook-toss';
export type { BillingKeyIssueResponse, ProviderCardSummary, ProviderPayment } from './wire-format';
