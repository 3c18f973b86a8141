/**
 * A failure the caller can act on. The string `code` is the contract: it survives Kafka, Temporal
 * and HTTP hops where `instanceof` does not.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly title: string,
    detail?: string,
    /** Extra members of the problem body, e.g. `existing_job` or `required_feature`. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? title);
    this.name = code;
  }
}

export class ValidationError extends DomainError {
  constructor(
    detail: string,
    readonly errors: { field: string; message: string }[] = [],
  ) {
    super('ErrValidation', 400, 'Request is not valid', detail, errors.length ? { errors } : {});
  }
}

export class NotFoundError extends DomainError {
  constructor(code: string, what: string) {
    super(code, 404, `${what} not found`, `${what} does not exist or is not visible to you.`);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(detail = 'Log in to continue.') {
    super('ErrUnauthenticated', 401, 'Authentication required', detail);
  }
}

export class ForbiddenError extends DomainError {
  constructor(detail = 'You do not have permission to do this.', extensions: Record<string, unknown> = {}) {
    super('ErrForbidden', 403, 'Forbidden', detail, extensions);
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, detail: string, extensions: Record<string, unknown> = {}) {
    super(code, 409, 'Conflict', detail, extensions);
  }
}
