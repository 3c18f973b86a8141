import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { DomainError, type ProblemKind } from './domain-error';
import { CommonErrors } from './problem-details.errors';
import { redactUrl } from './redact-url';
import { PROBLEM_CONTENT_TYPE, type ProblemDetails, problemType } from './problem';

/** Maps plain HTTP statuses (from Nest, Express or body-parser) to stable codes. */
const PROBLEM_BY_STATUS: Record<number, ProblemKind> = {
  400: CommonErrors.validation,
  401: CommonErrors.unauthenticated,
  403: CommonErrors.forbidden,
  404: CommonErrors.notFound,
  405: CommonErrors.methodNotAllowed,
  409: CommonErrors.conflict,
  413: CommonErrors.payloadTooLarge,
  415: CommonErrors.unsupportedMediaType,
  422: CommonErrors.unprocessable,
  429: CommonErrors.rateLimited,
  503: CommonErrors.unavailable,
};

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
}

/** An error of reading the request (body-parser's, or zlib's for a body that is not what its Content-Encoding says). */
function isClientError(error: unknown): error is BodyParserError & { status: number } {
  if (typeof error !== 'object' || error === null) return false;
  const { status, type, code } = error as BodyParserError & { code?: unknown };
  const fromReading = typeof type === 'string' || (typeof code === 'string' && code.startsWith('Z_'));
  return fromReading && typeof status === 'number' && status >= 400 && status < 500;
}

/** Connection failures of the database (Node socket errors, SQLSTATE class 08, shutdown 57P01-03). */
const DATABASE_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
]);
const DATABASE_UNAVAILABLE_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/];

/**
 * The database could not be reached (a network partition, a restart, a failover): a condition for
 * the client to retry, not a bug, so 503 rather than 500. TypeORM keeps the driver's error inside.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const candidate of [error, (error as { driverError?: unknown } | null)?.driverError]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { code, message } = candidate as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (DATABASE_UNAVAILABLE_CODES.has(code) || code.startsWith('08')))
      return true;
    if (
      typeof message === 'string' &&
      DATABASE_UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))
    ) {
      return true;
    }
  }
  return false;
}

/** Builds the problem body for any thrown value; the only place that decides what a client sees. */
export function toProblem(error: unknown, requestId: string | null, instance?: string): ProblemDetails {
  const base = { request_id: requestId, ...(instance ? { instance } : {}) };
  if (error instanceof DomainError) {
    return {
      ...error.extensions,
      type: problemType(error.code),
      title: error.title,
      status: error.status,
      detail: error.message,
      code: error.code,
      ...base,
    };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const known = PROBLEM_BY_STATUS[status];
    const code = known?.code ?? (status >= 500 ? CommonErrors.internal : CommonErrors.http).code;
    const title = known?.title ?? error.name;
    const response = error.getResponse();
    const messages =
      typeof response === 'object' && response !== null
        ? (response as { message?: unknown }).message
        : undefined;
    const errors = Array.isArray(messages) ? messages.map(String) : undefined;
    return {
      type: problemType(code),
      title,
      status,
      detail: status >= 500 ? 'An unexpected error occurred.' : errors ? errors.join('; ') : error.message,
      code,
      ...(errors ? { errors } : {}),
      ...base,
    };
  }
  // body-parser errors carry an HTTP status and a safe message when `expose` is set; zlib's, for a
  // body that claims an encoding it does not have, a 4xx status without a type.
  if (isClientError(error)) {
    const { code, title } = PROBLEM_BY_STATUS[error.status] ?? CommonErrors.validation;
    const detail =
      error.type === 'entity.parse.failed'
        ? notValidJson(error.message)
        : error.expose && error.message
          ? error.message
          : error.type === undefined
            ? 'The request body could not be decoded as its Content-Encoding says.'
            : title;
    return { type: problemType(code), title, status: error.status, detail, code, ...base };
  }
  if (isDatabaseUnavailable(error)) {
    const { code, title, status } = CommonErrors.unavailable;
    return {
      type: problemType(code),
      title,
      status,
      detail: 'The service could not reach its database. Try again in a few seconds.',
      code,
      ...base,
    };
  }
  const { code, title, status } = CommonErrors.internal;
  return {
    type: problemType(code),
    title,
    status,
    detail: 'An unexpected error occurred. Quote the request id when you contact support.',
    code,
    ...base,
  };
}

/** The parser's message says where it stopped; its wording (which quotes the body) is not passed on. */
function notValidJson(parserMessage: string | undefined): string {
  const position = /at position (\d+)/.exec(parserMessage ?? '')?.[1];
  return `The request body is not valid JSON${position === undefined ? '' : ` (at position ${position})`}.`;
}

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemDetailsFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const http = host.switchToHttp();
    const request = http.getRequest<Request & { id?: string | number }>();
    const response = http.getResponse<Response>();
    const requestId = request.id === undefined ? null : String(request.id);
    const problem = toProblem(error, requestId, redactUrl(request.originalUrl));
    if (problem.status === 503) {
      // A dependency is down or not up yet (a readiness probe while Redis connects, a database
      // outage): the answer says when to retry. Worth a warning, not an error.
      this.logger.warn(
        {
          code: problem.code,
          cause: error instanceof Error ? error.message : String(error),
          request_id: requestId,
        },
        'request refused: unavailable',
      );
    } else if (problem.status >= 500) {
      this.logger.error({ err: error, request_id: requestId }, 'request failed');
    }
    // Refused before its body arrived (no session, no route, too large): the connection ends with
    // the answer, rather than Node reading the rest of an unwanted body to keep it alive.
    if (!request.complete) response.setHeader('connection', 'close');
    sendProblem(response, problem);
  }
}

/**
 * Answers with a problem body: the filter's answer, and that of a handler Nest's routing does not
 * run (the webhook endpoint). Nothing is written once the response has started. A 503 says when to
 * try again: by default in 5 s, as the database (or another dependency) is back in seconds more
 * often than not.
 */
export function sendProblem(
  response: ServerResponse,
  problem: ProblemDetails,
  { retryAfterSeconds = 5 }: { retryAfterSeconds?: number } = {},
): void {
  if (response.headersSent) return;
  const body = JSON.stringify(problem);
  response.writeHead(problem.status, {
    'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    'content-length': Buffer.byteLength(body),
    ...(problem.status === 503 ? { 'retry-after': String(retryAfterSeconds) } : {}),
  });
  response.end(body);
}
