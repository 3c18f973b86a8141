/**
 * An answer of the API that is not a success, as the user should read it: the RFC 9457 problem's
 * `title` and `detail` (every error of the API is one), or plain words for what is not a problem
 * body (a proxy's page, the network gone). Never a stack or a raw body.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    /** The problem's stable `code` (e.g. `ErrDiffChanged`), when the API sent one. */
    readonly code: string | null = null,
    /** The request id to quote to support. */
    readonly requestId: string | null = null,
    /** The other members of the problem body (e.g. `errors`, `existing_job`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(`${title}: ${detail}`);
    this.name = 'ApiProblem';
  }

  /** Per-field messages of a validation problem (`errors: [{ field, message }]`). */
  get fieldErrors(): { field: string; message: string }[] {
    const errors = this.extra.errors;
    if (!Array.isArray(errors)) return [];
    return errors.flatMap((error: unknown) => {
      const { field, message } = (error ?? {}) as { field?: unknown; message?: unknown };
      return typeof field === 'string' && typeof message === 'string' ? [{ field, message }] : [];
    });
  }
}

const STATUS_WORDS: Record<number, string> = {
  401: 'You are not logged in',
  403: 'Not allowed',
  404: 'Not found',
  429: 'Too many requests',
  502: 'A service did not answer',
  503: 'Service unavailable',
  504: 'A service timed out',
};

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

/** The problem a failed answer carries, read from its body (already parsed, or not JSON at all). */
export function problemFrom(response: Response, body: unknown): ApiProblem {
  const contentType = response.headers.get('content-type') ?? '';
  const isProblem = /json/.test(contentType) && typeof body === 'object' && body !== null;
  const fields = isProblem ? (body as Record<string, unknown>) : {};
  const title = text(fields.title) ?? STATUS_WORDS[response.status] ?? 'Something went wrong';
  const detail =
    text(fields.detail) ??
    (response.status >= 500
      ? 'The service could not complete this request. Try again in a moment.'
      : `The request was refused (${response.status}).`);
  const { type: _type, title: _title, status: _status, detail: _detail, code, request_id, ...extra } = fields;
  return new ApiProblem(
    response.status,
    title,
    detail,
    text(code),
    text(request_id) ?? response.headers.get('x-request-id'),
    extra,
  );
}

/** What the user reads when no answer came at all. */
export function networkProblem(): ApiProblem {
  return new ApiProblem(
    0,
    'Cannot reach guildkeeper',
    'The request did not get an answer. Check your connection and try again.',
  );
}
