import 'reflect-metadata';

const PROBLEM_ANSWERS = 'problem-details:answers';

/** The 4xx statuses a route answers with a problem body. */
export type ProblemStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429;

/** Status -> the problem `code`s a route may answer with it. */
export type ProblemAnswerMap = Partial<Record<ProblemStatus, readonly string[]>>;

/**
 * Declares the problem answers a route (or every route of a controller) gives, status by status,
 * for the OpenAPI document: a generated client can then type the errors it meets. Declarations
 * add up: a guard's decorator declares its own (403 ErrForbidden), the route adds the rest.
 */
export function ProblemAnswers(answers: ProblemAnswerMap): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor?.value ?? target) as object;
    Reflect.defineMetadata(PROBLEM_ANSWERS, mergeProblemAnswers(problemAnswersOn(holder), answers), holder);
  };
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
