/** Messages for the decline codes tests usually configure, so a rule needs only its code. */
const DECLINE_MESSAGES: Record<string, string> = {
  REJECT_CARD_PAYMENT: 'Declined: over the card limit or insufficient balance.',
  REJECT_CARD_COMPANY: 'Declined by the card company.',
  INVALID_CARD_EXPIRATION: 'The card has expired.',
  INVALID_STOPPED_CARD: 'The card is suspended.',
  INVALID_CARD_NUMBER: 'The card number is not valid.',
  INVALID_CARD_LOST_OR_STOLEN: 'The card was reported lost or stolen.',
  EXCEED_MAX_DAILY_PAYMENT_COUNT: 'The daily payment count limit was exceeded.',
  EXCEED_MAX_AMOUNT: 'The amount exceeds the limit.',
  NOT_SUPPORTED_CARD_TYPE: 'This card type is not supported.',
};

export function declineMessage(code: string, message?: string): string {
  return message ?? DECLINE_MESSAGES[code] ?? `The card payment was declined (${code}).`;
}
