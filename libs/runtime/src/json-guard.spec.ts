import { jsonValueProblem, MAX_JSON_DEPTH } from './json-guard';

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
