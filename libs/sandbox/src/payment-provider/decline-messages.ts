/**
 * The card-decline codes of Toss's billing charge (`POST /v1/billing/{billingKey}`) with the HTTP
 * status Toss answers each with (docs.tosspayments.com/reference/error-codes: 403 for the card
 * company's refusals, 400 for the rest), and a message so a rule needs only its code.
 */
const DECLINES: Record<string, { status: 400 | 403; message: string }> = {
  REJECT_CARD_PAYMENT: { status: 403, message: 'Declined: over the card limit or insufficient balance.' },
  REJECT_CARD_COMPANY: { status: 403, message: 'Declined by the card company.' },
  EXCEED_MAX_ONE_DAY_AMOUNT: { status: 403, message: 'The daily amount limit was exceeded.' },
  FDS_ERROR: { status: 403, message: 'Declined as a risky transaction.' },
  INVALID_REJECT_CARD: { status: 400, message: 'The card was refused; ask the card company.' },
  INVALID_CARD_EXPIRATION: { status: 400, message: 'The card has expired.' },
  INVALID_STOPPED_CARD: { status: 400, message: 'The card is suspended.' },
  INVALID_CARD_NUMBER: { status: 400, message: 'The card number is not valid.' },
  INVALID_CARD_LOST_OR_STOLEN: { status: 400, message: 'The card was reported lost or stolen.' },
  EXCEED_MAX_DAILY_PAYMENT_COUNT: { status: 400, message: 'The daily payment count limit was exceeded.' },
  EXCEED_MAX_PAYMENT_AMOUNT: { status: 400, message: 'The amount exceeds the limit.' },
  EXCEED_MAX_AMOUNT: { status: 400, message: 'The amount exceeds the limit.' },
  NOT_SUPPORTED_CARD_TYPE: { status: 400, message: 'This card type is not supported.' },
};

export function declineMessage(code: string, message?: string): string {
  return message ?? DECLINES[code]?.message ?? `The card payment was declined (${code}).`;
}

/** Toss's status for a decline code; 400 for codes it does not list as the card company's refusal. */
export function declineStatus(code: string): number {
  return DECLINES[code]?.status ?? 400;
}

/**
 * Answers that say nothing about the card and move no money: the provider asks to try again
 * later. Statuses as Toss's error-code reference gives them.
 */
export const TEMPORARY_FAILURES = {
  PROVIDER_ERROR: { status: 400, message: 'A temporary error occurred. Please try again in a few minutes.' },
  FORBIDDEN_CONSECUTIVE_REQUEST: {
    status: 403,
    message: 'Repeated requests are not allowed. Try again later.',
  },
} as const;

export type TemporaryFailureCode = keyof typeof TEMPORARY_FAILURES;

/**
 * What a charge whose answer was lost may be answered with instead: a temporary failure, or the
 * codes Toss gives a request that repeats one it already processed (DUPLICATED_ORDER_ID for an
 * order id approved before, ALREADY_PROCESSED_PAYMENT).
 */
export const LOST_ANSWERS = {
  ...TEMPORARY_FAILURES,
  DUPLICATED_ORDER_ID: { status: 400, message: 'This orderId was already approved or canceled.' },
  ALREADY_PROCESSED_PAYMENT: { status: 400, message: 'This payment was already processed.' },
} as const;

export type LostAnswerCode = keyof typeof LOST_ANSWERS;
