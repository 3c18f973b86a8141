/**
 * What an area's `*.errors.ts` needs to define its problems, without the rest of the library: the
 * exception filter and the OpenAPI decorator bring in Nest and `reflect-metadata`. Recovery's
 * workflow code names its non-retryable failures by the problems of the errors modules it imports,
 * so those modules run in Temporal's workflow sandbox, whose bundler (webpack, without the tsconfig
 * paths) reaches this file only by its relative path.
 */
export { defineProblem } from './domain-error';
export { defineNotFound } from './problem-details.errors';
