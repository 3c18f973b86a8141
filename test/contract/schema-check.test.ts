import * as z from 'zod/mini';
import { checkAgainst, strictSchema } from './support/schema-check';

/** The suite's own check, on a small schema shaped as Discord's generated ones are. */
describe('checkAgainst: loose and strict schema checks', () => {
  const Tag = z.object({ id: z.string(), name: z.string() });
  const Item: z.ZodMiniType = z.object({
    id: z.string(),
    count: z.int(),
    note: z.nullish(z.string()),
    tags: z.array(z.lazy(() => Tag)),
    owner: z.union([
      z.object({ kind: z.literal('user'), user_id: z.string() }),
      z.object({ kind: z.literal('bot') }),
    ]),
    children: z.optional(z.array(z.lazy(() => Item))),
  });
  const valid = {
    id: '1',
    count: 2,
    tags: [{ id: 't', name: 'tag' }],
    owner: { kind: 'user', user_id: '9' },
    children: [{ id: '2', count: 0, note: null, tags: [], owner: { kind: 'bot' } }],
  };

  it('passes a value with exactly the schema fields', () => {
    expect(checkAgainst(Item, valid)).toEqual({ loose: [], strict: [] });
  });

  it('fails a missing or mistyped required field in both checks, saying where', () => {
    const { count: _count, ...missing } = valid;
    const mistyped = { ...valid, tags: [{ id: 't', name: 3 }] };
    expect(checkAgainst(Item, missing).loose).toEqual(['count: expected number, got missing']);
    expect(checkAgainst(Item, mistyped).loose).toEqual(['tags.0.name: expected string, got number']);
    expect(checkAgainst(Item, mistyped).strict).toEqual(['tags.0.name: expected string, got number']);
  });

  it('fails an unknown field only strictly, through arrays, lazy references and recursion', () => {
    const extra = structuredClone(valid) as typeof valid & { children: { tags: object[] }[] };
    extra.children[0].tags.push({ id: 'u', name: 'x', colour: 'red' });
    expect(checkAgainst(Item, extra)).toEqual({
      loose: [],
      strict: ['children.0.tags.0: fields Discord does not send: colour'],
    });
  });

  it('fails an unknown field in the option of a union the value otherwise matches', () => {
    const extra = { ...valid, owner: { kind: 'bot', user_id: '9' } };
    expect(checkAgainst(Item, extra)).toEqual({
      loose: [],
      strict: ['owner: fields Discord does not send: user_id'],
    });
  });

  it('names each option of a union when the value matches none', () => {
    const neither = { ...valid, owner: { kind: 'team' } };
    expect(checkAgainst(Item, neither).loose).toEqual([
      'owner: matches none of the 2 options:',
      '  option 1: owner.kind: invalid_value: Invalid input',
      '  option 1: owner.user_id: expected string, got missing',
      '  option 2: owner.kind: invalid_value: Invalid input',
    ]);
  });

  it('checks an intersection of objects as the one object it describes', () => {
    const Failure = z.intersection(
      z.object({ code: z.number(), message: z.string() }),
      z.lazy(() => z.object({ errors: z.optional(z.record(z.string(), z.string())) })),
    );
    expect(checkAgainst(Failure, { code: 1, message: 'No', errors: { name: 'required' } })).toEqual({
      loose: [],
      strict: [],
    });
    expect(checkAgainst(Failure, { code: 1, message: 'No', retry_after: 1 })).toEqual({
      loose: [],
      strict: ['(root): fields Discord does not send: retry_after'],
    });
  });

  it('leaves the original schema as it was', () => {
    strictSchema(Item);
    expect(z.safeParse(Item, { ...valid, extra: true }).success).toBe(true);
  });
});
