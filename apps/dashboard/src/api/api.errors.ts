import type { operations } from './schema';

type ValueOf<T> = T[keyof T];
type ResponsesOf<Operation> = Operation extends { responses: infer Responses } ? ValueOf<Responses> : never;
/** A response's declared codes; a problem without declared codes types `code` as any string. */
type CodeOf<Response> = Response extends { content: { 'application/problem+json': { code?: infer Code } } }
  ? string extends Code
    ? never
    : Exclude<Code, undefined>
  : never;

/** Every problem `code` a public route declares, as the generated client types it. */
export type ProblemCode = CodeOf<ResponsesOf<ValueOf<operations>>>;

/**
 * The problem codes the dashboard acts on, by name. The dashboard cannot import the services'
 * `*.errors.ts`: each code here is checked against the generated client's union, so a code the API
 * renames or stops answering fails the typecheck (and `api.errors.spec.ts`).
 */
export const PROBLEM_CODES = {
  diffChanged: 'ErrDiffChanged',
  subscriptionExists: 'ErrSubscriptionExists',
  checkoutNotFound: 'ErrCheckoutNotFound',
  checkoutExpired: 'ErrCheckoutExpired',
  checkoutUsed: 'ErrCheckoutUsed',
  checkoutMismatch: 'ErrCheckoutMismatch',
} as const satisfies Record<string, ProblemCode>;

/** Billing refused the checkout itself (not the card, not the payment). */
export const CHECKOUT_REFUSALS: readonly string[] = [
  PROBLEM_CODES.checkoutNotFound,
  PROBLEM_CODES.checkoutExpired,
  PROBLEM_CODES.checkoutUsed,
  PROBLEM_CODES.checkoutMismatch,
];
