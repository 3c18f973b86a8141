import * as z from 'zod/mini';

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown> & { shape?: Record<string, Schema> };

/** The schema a lazy reference stands for (the schema itself when it is none). */
function resolved(schema: Schema): Schema {
  let current = schema;
  while (current._zod.def.type === 'lazy')
    current = (current._zod.def as Def & { getter: () => Schema }).getter();
  return current;
}

/**
 * The schema with every object in it made strict, however deep (through arrays, unions,
 * intersections, optionals, records, tuples and lazy references): a field the schema does not
 * name fails it rather than being dropped. Discord's generated schemas use plain objects, so
 * `safeParse` alone only proves each required field is there with its type.
 */
export function strictSchema<T extends Schema>(schema: T): T {
  return makeStrict(schema) as T;
}

/** Each schema's strict form, built once: the spec's schemas are shared and never change. */
const strictForms = new WeakMap<Schema, Schema>();

function makeStrict(schema: Schema): Schema {
  const known = strictForms.get(schema);
  if (known) return known;
  const def = schema._zod.def as Def;
  const walk = (inner: unknown): Schema => makeStrict(inner as Schema);
  const walkAll = (inners: unknown): Schema[] => (inners as Schema[]).map(walk);
  let strict: Schema;
  // Only the kinds that hold other schemas; every leaf (string, literal, enum...) stays as it is.
  const kind: string = def.type;
  switch (kind) {
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(def.shape as Record<string, Schema>).map(([key, value]) => [key, walk(value)]),
      );
      // An object that names a catchall (a loose object) keeps it; every other one allows nothing else.
      const catchall = def.catchall === undefined ? z.never() : walk(def.catchall);
      strict = z.core.clone(schema, { ...def, shape, catchall } as Def);
      break;
    }
    case 'array':
      strict = z.core.clone(schema, { ...def, element: walk(def.element) } as Def);
      break;
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      strict = z.core.clone(schema, { ...def, innerType: walk(def.innerType) } as Def);
      break;
    case 'union':
      strict = z.core.clone(schema, { ...def, options: walkAll(def.options) } as Def);
      break;
    case 'intersection': {
      // Each side made strict would refuse the other side's fields: an intersection of two objects
      // is checked as the one object it describes.
      const left = resolved(def.left as Schema);
      const right = resolved(def.right as Schema);
      strict =
        left._zod.def.type === 'object' && right._zod.def.type === 'object'
          ? walk(z.object({ ...(left._zod.def as Def).shape!, ...(right._zod.def as Def).shape! }))
          : z.core.clone(schema, { ...def, left: walk(def.left), right: walk(def.right) } as Def);
      break;
    }
    case 'record':
      strict = z.core.clone(schema, { ...def, valueType: walk(def.valueType) } as Def);
      break;
    case 'tuple':
      strict = z.core.clone(schema, {
        ...def,
        items: walkAll(def.items),
        rest: def.rest == null ? def.rest : walk(def.rest),
      } as Def);
      break;
    case 'pipe':
      strict = z.core.clone(schema, { ...def, in: walk(def.in), out: walk(def.out) } as Def);
      break;
    case 'lazy': {
      // Resolved when first parsed, so self-referencing schemas (Discord's error details) stay finite.
      // Zod keeps the resolved inner schema on the def (`_cachedInner`) once parsed: the strict
      // copy must not inherit the loose one.
      const { getter, _cachedInner: _loose, ...rest } = def as Def & { getter: () => Schema };
      strict = z.core.clone(schema, { ...rest, getter: () => walk(getter()) } as Def);
      break;
    }
    default:
      strict = schema;
  }
  strictForms.set(schema, strict);
  return strict;
}

/**
 * Every issue of a failed parse on a line of its own, as `path: message`, a union's failures under
 * it with each option's own issues, so a mismatch deep in a guild says where it is.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const at = path.length === 0 ? '(root)' : path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      lines.push(`${at}: fields Discord does not send: ${issue.keys.join(', ')}`);
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      lines.push(`${at}: matches none of the ${issue.errors.length} options:`);
      issue.errors.forEach((optionIssues, option) => {
        lines.push(...describeIssues(optionIssues, path).map((line) => `  option ${option + 1}: ${line}`));
      });
    } else if (issue.code === 'invalid_type') {
      // Zod mini carries no messages of its own: say what was expected and what came.
      const got = issue.input === undefined ? 'missing' : issue.input === null ? 'null' : typeof issue.input;
      lines.push(`${at}: expected ${issue.expected}, got ${got}`);
    } else {
      lines.push(`${at}: ${issue.code}: ${issue.message}`);
    }
  }
  return lines;
}

export interface SchemaCheck {
  /** Each required field present and typed (`safeParse`); the fields the schema does not name are ignored. */
  loose: string[];
  /** The same, and no field the schema does not name (`strictSchema`). */
  strict: string[];
}

/** The issues of the value against the schema, both loosely and strictly; empty lists when it matches. */
export function checkAgainst(schema: Schema, value: unknown): SchemaCheck {
  const loose = z.safeParse(schema, value, { reportInput: true });
  const strict = z.safeParse(strictSchema(schema), value, { reportInput: true });
  return {
    loose: loose.success ? [] : describeIssues(loose.error.issues),
    strict: strict.success ? [] : describeIssues(strict.error.issues),
  };
}
