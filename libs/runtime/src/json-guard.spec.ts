import type { Request, Response } from 'express';
import { deferBody } from './deferred-body';
import { explainUnparsableJson, guardJsonBody, jsonValueProblem, MAX_JSON_DEPTH } from './json-guard';

const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

describe(jsonValueProblem.name, () => {
  it('takes ordinary bodies, with any text a database can store', () => {
    expect(jsonValueProblem({ a: [1, { b: 'x' }], c: '[[[{{{"\\', emoji: '😀', é: 'é' })).toBeNull();
    expect(jsonValueProblem(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it('refuses nesting past the limit, objects and arrays alike', () => {
    expect(jsonValueProblem(nested(MAX_JSON_DEPTH + 1))).toMatch(/deeper/);
    expect(jsonValueProblem(JSON.parse(`{"a":${'{"b":'.repeat(1400)}1${'}'.repeat(1401)}`))).toMatch(
      /deeper/,
    );
  });

  it('refuses what Postgres cannot store: NUL and unpaired surrogates, in values and keys', () => {
    expect(jsonValueProblem(JSON.parse('{"a":"x\\u0000y"}'))).toMatch(/NUL/);
    expect(jsonValueProblem(JSON.parse('{"eventType":"\\ud800"}'))).toMatch(/surrogate/);
    expect(jsonValueProblem(JSON.parse('{"a":["\\udc00"]}'))).toMatch(/surrogate/);
    expect(jsonValueProblem(JSON.parse('{"\\u0000":1}'))).toMatch(/NUL/);
  });
});

describe(guardJsonBody.name, () => {
  /** What the guard passes on for a request with these headers and this parsed body. */
  function guard(headers: Record<string, string>, body?: unknown, deferred = false): unknown {
    const req = { headers, body } as unknown as Request;
    if (deferred) deferBody(req);
    let passed: unknown = 'not called';
    guardJsonBody(req, {} as Response, (error?: unknown) => (passed = error));
    return passed;
  }

  it('takes a JSON object, and a request without a body', () => {
    expect(guard({ 'content-type': 'application/json', 'content-length': '2' }, {})).toBeUndefined();
    expect(guard({})).toBeUndefined();
    expect(guard({ 'content-type': 'text/plain', 'content-length': '0' })).toBeUndefined();
  });

  it('refuses a body the JSON parser did not read with 415, naming application/json', () => {
    expect(guard({ 'content-type': 'text/plain', 'content-length': '9' })).toMatchObject({
      status: 415,
      expose: true,
      message: 'The request body must be JSON, sent with Content-Type: application/json, not text/plain.',
    });
    expect(guard({ 'transfer-encoding': 'chunked' })).toMatchObject({
      status: 415,
      message: expect.stringContaining('this one names none') as unknown,
    });
  });

  it('leaves a body its handler reads itself alone', () => {
    expect(guard({ 'content-type': 'text/plain', 'content-length': '9' }, undefined, true)).toBeUndefined();
  });

  it('refuses JSON that is not an object', () => {
    for (const body of [null, 42, 'text', [{}]]) {
      expect(guard({ 'content-type': 'application/json', 'content-length': '4' }, body)).toMatchObject({
        status: 400,
        message: 'The request body must be a JSON object.',
      });
    }
  });
});

describe(explainUnparsableJson.name, () => {
  it("passes the parser's SyntaxError on as an error of reading the body, and other errors as they are", () => {
    const parse = Object.assign(new SyntaxError('Unexpected token'), {
      type: 'entity.parse.failed',
      status: 400,
    });
    let passed: unknown;
    explainUnparsableJson(parse, {} as Request, {} as Response, (error?: unknown) => (passed = error));
    expect(passed).not.toBeInstanceOf(SyntaxError);
    expect(passed).toMatchObject({ status: 400, type: 'entity.parse.failed', expose: true });
    const other = Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413 });
    explainUnparsableJson(other, {} as Request, {} as Response, (error?: unknown) => (passed = error));
    expect(passed).toBe(other);
  });
});
