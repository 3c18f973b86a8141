import { defineProblem, DomainError, type Problem } from './domain-error';

/** The problems any service answers: bad input, authentication, and statuses without a domain code. */
export const CommonErrors = {
  validation: defineProblem({ code: 'ErrValidation', status: 400, title: 'Request is not valid' }),
  badRequest: defineProblem({ code: 'ErrBadRequest', status: 400, title: 'Bad request' }),
  unauthenticated: defineProblem(
    { code: 'ErrUnauthenticated', status: 401, title: 'Authentication required' },
    (detail: string = 'Log in to continue.') => ({ detail }),
  ),
  forbidden: defineProblem(
    { code: 'ErrForbidden', status: 403, title: 'Forbidden' },
    (detail: string = 'You do not have permission to do this.', extensions?: Record<string, unknown>) => ({
      detail,
      extensions,
    }),
  ),
  notFound: defineProblem({ code: 'ErrNotFound', status: 404, title: 'Not found' }),
  methodNotAllowed: defineProblem({ code: 'ErrMethodNotAllowed', status: 405, title: 'Method not allowed' }),
  conflict: defineProblem({ code: 'ErrConflict', status: 409, title: 'Conflict' }),
  payloadTooLarge: defineProblem({
    code: 'ErrPayloadTooLarge',
    status: 413,
    title: 'Request body too large',
  }),
  unsupportedMediaType: defineProblem({
    code: 'ErrUnsupportedMediaType',
    status: 415,
    title: 'Unsupported media type',
  }),
  unprocessable: defineProblem({ code: 'ErrUnprocessable', status: 422, title: 'Unprocessable request' }),
  rateLimited: defineProblem({ code: 'ErrRateLimited', status: 429, title: 'Too many requests' }),
  internal: defineProblem({ code: 'ErrInternal', status: 500, title: 'Internal error' }),
  unavailable: defineProblem({ code: 'ErrUnavailable', status: 503, title: 'Service unavailable' }),
  /** A status of Nest's or Express's that no other problem names; the status is the thrown one. */
  http: defineProblem({ code: 'ErrHttp', status: 500, title: 'Error' }),
} as const;

/**
 * A problem of `what` (a guild, a snapshot, ...) missing or not the caller's: the same answer
 * either way, so that nobody learns which ids exist.
 */
export function defineNotFound(code: string, what: string): Problem<[]> {
  return defineProblem({ code, status: 404, title: `${what} not found` }, () => ({
    detail: `${what} does not exist or is not visible to you.`,
  }));
}

/** Bad input, with each invalid field (`errors`) when there are some. */
export class ValidationError extends DomainError {
  constructor(
    detail: string,
    readonly errors: { field: string; message: string }[] = [],
  ) {
    super(CommonErrors.validation, detail, errors.length ? { errors } : {});
  }
}
