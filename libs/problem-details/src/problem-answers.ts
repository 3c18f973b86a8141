import 'reflect-metadata';
import type { ProblemKind } from './domain-error';

const PROBLEM_ANSWERS = 'problem-details:answers';

/** The 4xx statuses a route answers with a problem body. */
export type ProblemStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429;

/** Status -> the problem `code`s a route may answer with it. */
export type ProblemAnswerMap = Partial<Record<ProblemStatus, readonly string[]>>;

/**
 * Declares the problem answers a route (or every route of a controller) gives, for the OpenAPI
 * document: a generated client can then type the errors it meets. Each is a named problem of an
 * area's `*.errors.ts`, listed under its own status. Declarations add up: a guard's decorator
 * declares its own (403 ErrForbidden), the route adds the rest.
 */
export function ProblemAnswers(...problems: ProblemKind[]): MethodDecorator & ClassDecorator {
  const answers = problemAnswerMap(problems);
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor?.value ?? target) as object;
    Reflect.defineMetadata(PROBLEM_ANSWERS, mergeProblemAnswers(problemAnswersOn(holder), answers), holder);
  };
}

/** Named problems as status -> codes, each status's codes in the order given. */
export function problemAnswerMap(problems: readonly ProblemKind[]): ProblemAnswerMap {
  const map: Partial<Record<ProblemStatus, string[]>> = {};
  for (const { code, status } of problems) {
    const codes = (map[status as ProblemStatus] ??= []);
    if (!codes.includes(code)) codes.push(code);
  }
  return map;
}

/** What `ProblemAnswers` declared on a handler or a controller class. */
export function problemAnswersOn(holder: object): ProblemAnswerMap {
  return (Reflect.getMetadata(PROBLEM_ANSWERS, holder) as ProblemAnswerMap | undefined) ?? {};
}

/** The union of two declarations, each status's codes once, in order. */
export function mergeProblemAnswers(a: ProblemAnswerMap, b: ProblemAnswerMap): ProblemAnswerMap {
  const merged: ProblemAnswerMap = { ...a };
  for (const [status, codes] of Object.entries(b) as [`${ProblemStatus}`, readonly string[]][]) {
    const key = Number(status) as ProblemStatus;
    merged[key] = [...new Set([...(merged[key] ?? []), ...codes])];
  }
  return merged;
}
