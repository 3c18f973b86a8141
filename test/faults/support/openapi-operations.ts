import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The public API's operations as its OpenAPI document describes them, and fast-check generators of
 * bad requests for them: values of the wrong type or out of range for each schema, bodies that are
 * not JSON, too deep, too large or sent with the wrong headers, ids of nothing, hostile text. Each
 * generated request says which of its parts certainly break the contract (`defects`) and which are
 * hostile but allowed (`noise`), so a test knows which answers it may accept.
 */

/** The generated OpenAPI 3 document of the whole public API, as the gateway serves it at /docs. */
export const OPENAPI_DOCUMENT = path.resolve(__dirname, '../../../apps/gateway/src/docs/openapi.json');

/** The parts of an OpenAPI schema object the public API's document uses. */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

/** One operation of the document, its schemas with every `$ref` resolved. */
export interface Operation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/v1/guilds/{guildId}/snapshots`. */
  path: string;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  body?: Schema;
  /** `security: []`: answered without a session (login, callback, logout). */
  public: boolean;
  /** The other methods the document lists for the same path. */
  siblingMethods: string[];
}

interface Document {
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas: Record<string, Schema> };
}

interface RawOperation {
  operationId: string;
  parameters?: (Parameter & { in: string })[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: unknown[];
}

/** Every operation of the document, read now: nothing here lists paths by hand. */
export function readOperations(file = OPENAPI_DOCUMENT): Operation[] {
  const document = JSON.parse(readFileSync(file, 'utf8')) as Document;
  const resolve = (schema: Schema): Schema => {
    if (schema.$ref) return resolve(document.components.schemas[schema.$ref.split('/').pop()!]);
    return {
      ...schema,
      ...(schema.items ? { items: resolve(schema.items) } : {}),
      ...(schema.properties
        ? {
            properties: Object.fromEntries(
              Object.entries(schema.properties).map(([name, property]) => [name, resolve(property)]),
            ),
          }
        : {}),
    };
  };
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, raw]) => {
      const parameters = (raw.parameters ?? []).map((parameter) => ({
        ...parameter,
        required: parameter.required ?? false,
        schema: resolve(parameter.schema),
      }));
      const json = raw.requestBody?.content['application/json'];
      return {
        operationId: raw.operationId,
        method: method.toUpperCase(),
        path: template,
        pathParameters: parameters.filter((parameter) => parameter.in === 'path'),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        ...(json ? { body: resolve(json.schema) } : {}),
        public: Array.isArray(raw.security) && raw.security.length === 0,
        siblingMethods: Object.keys(item)
          .map((other) => other.toUpperCase())
          .filter((other) => other !== method.toUpperCase()),
      };
    }),
  );
}

/** JSON text written as is, for what JSON.stringify cannot say: 1e309, -0, deep nesting, bad JSON. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson parts; keeps own `__proto__` keys as keys. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** An object with these own keys, `__proto__` included (an object literal would set the prototype). */
export function ownKeys(entries: [string, unknown][]): Record<string, unknown> {
  return Object.fromEntries(entries);
}

/**
 * A generated value for one field. `defect` says why the contract certainly refuses it; `noise`
 * marks a value that is hostile but allowed (an injection string in a free-text field), so a
 * request carrying only noise may be answered 2xx.
 */
export interface Sample {
  value: unknown;
  defect?: string;
  noise?: string;
}

/** Strings that probe the layers under the API: SQL, NoSQL, shells, templates, paths, encodings. */
export const HOSTILE_STRINGS = [
  `'; DROP TABLE recovery.snapshots; --`,
  `"; DROP TABLE billing.subscriptions; --`,
  `' OR 1=1 --`,
  `" OR ""="`,
  `1; SELECT pg_sleep(10)`,
  `$(touch /tmp/pwned)`,
  '`id`',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${7*7}',
  '../../../../etc/passwd',
  '..%2F..%2Finternal%2Fv1%2Fplans',
  '%00',
  '\u0000',
  "\u0000' OR 1=1 --",
  'a\u0000b',
  '\u0001\u0002\u0003\u001b[31m\u007f',
  '\r\nSet-Cookie: sid=stolen',
  '\u202egnp.exe',
  '\ud800',
  '\udfff\ud800',
  '𝕏🙂👨‍👩‍👧‍👦',
  'Ω≈ç√∫˜µ≤≥÷',
  'ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ',
  '\ufeff',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '[object Object]',
  '__proto__',
  'constructor',
  '$where',
  '{"$gt":""}',
  '',
  ' ',
];

/** JSON values a NoSQL or prototype-pollution attack sends where a scalar belongs. */
export const HOSTILE_OBJECTS: unknown[] = [
  { $gt: '' },
  { $ne: null },
  { $where: 'sleep(1000)' },
  ownKeys([['__proto__', { isAdmin: true }]]),
  { constructor: { prototype: { isAdmin: true } } },
  [{ $gt: '' }],
];

const hostileString = fc.constantFrom(...HOSTILE_STRINGS);
/** Any text, unicode, control characters and lone surrogates included. */
const anyText = fc.oneof(
  hostileString,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** Nesting too deep for recursive code: arrays or objects inside each other, as raw JSON. */
export function deeplyNested(): fc.Arbitrary<RawJson> {
  return fc
    .record({ depth: fc.integer({ min: 1_000, max: 60_000 }), objects: fc.boolean() })
    .map(({ depth, objects }) =>
      objects
        ? new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)
        : new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`),
    );
}

/** Numbers at the edges, as JSON can carry them (some only as raw text). */
const edgeNumbers: unknown[] = [
  new RawJson('1e309'),
  new RawJson('-1e309'),
  new RawJson('-0'),
  new RawJson('9007199254740993'),
  new RawJson('1e21'),
  new RawJson('123456789012345678901234567890'),
  new RawJson('0.1e-400'),
  2 ** 31,
  -(2 ** 31) - 1,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  0.5,
  -1,
];

/** A value of the schema (or one of `references` for a field they name). */
export function validValue(schema: Schema, references: readonly string[] | undefined): fc.Arbitrary<unknown> {
  if (references?.length) return fc.constantFrom(...references);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type ?? 'any') {
    case 'string':
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({
        minLength: schema.minLength ?? 0,
        maxLength: Math.min(schema.maxLength ?? 40, 40),
      });
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      if (schema.items?.enum && schema.uniqueItems) {
        return fc.shuffledSubarray(schema.items.enum, {
          minLength: schema.minItems ?? 0,
          maxLength: schema.maxItems ?? schema.items.enum.length,
        });
      }
      return fc.array(validValue(schema.items ?? {}, undefined), {
        minLength: schema.minItems ?? 0,
        maxLength: schema.maxItems ?? 5,
      });
    case 'object':
      return validObject(schema, {});
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An object of the schema: every required property, some optional ones. */
export function validObject(
  schema: Schema,
  references: Record<string, readonly string[]>,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  return fc.record(
    Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, validValue(property, references[name])]),
    ),
    { requiredKeys: [...required] },
  );
}

/** Values of another JSON type than the schema's: each certainly refused. */
function wrongType(schema: Schema): fc.Arbitrary<unknown> {
  const notString = fc.constantFrom<unknown>(
    0,
    -1,
    true,
    false,
    [],
    {},
    ['a'],
    ...edgeNumbers,
    ...HOSTILE_OBJECTS,
  );
  switch (schema.type ?? 'any') {
    case 'string':
      return fc.oneof(notString, deeplyNested());
    case 'integer':
      return fc.oneof(
        fc.constantFrom<unknown>(
          '5',
          '2',
          'NaN',
          '1e309',
          'Infinity',
          '',
          true,
          [],
          {},
          [3],
          1.5,
          ...HOSTILE_OBJECTS,
          ...edgeNumbers.filter((value) => !fitsInteger(schema, value)),
        ),
        deeplyNested(),
      );
    case 'boolean':
      return fc.oneof(
        fc.constantFrom<unknown>('true', 'false', 1, 0, '1', 'yes', [], {}, [true], ...HOSTILE_OBJECTS),
        deeplyNested(),
      );
    case 'array':
      return fc.oneof(
        fc.constantFrom<unknown>('roles', 1, true, {}, { 0: 'roles' }, ...HOSTILE_OBJECTS.slice(0, 4)),
        hostileString,
      );
    case 'object':
      return fc.oneof(fc.constantFrom<unknown>('x', 1, true, -0, ...edgeNumbers.slice(0, 3)), hostileString);
    default:
      return fc.constant(new RawJson('{"unexpected":'));
  }
}

/** Whether an edge number would still be a valid value of an integer schema. */
function fitsInteger(schema: Schema, value: unknown): boolean {
  const number = value instanceof RawJson ? Number(value.text) : Number(value);
  return (
    Number.isInteger(number) &&
    number >= (schema.minimum ?? -Infinity) &&
    number <= (schema.maximum ?? Infinity)
  );
}

/** Values of the schema's type that break one of its constraints (enum, pattern, format, range...). */
function brokenConstraint(schema: Schema, valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> | undefined {
  const options: fc.Arbitrary<unknown>[] = [];
  if (schema.type === 'string') {
    if (schema.enum) {
      const words = schema.enum.map(String);
      options.push(
        fc.constantFrom(
          ...words.flatMap((word) => [word.toLowerCase(), ` ${word}`, `${word}\u0000`, `${word}\n`]),
          'РRO', // Cyrillic Р
          ...HOSTILE_STRINGS,
        ),
      );
    }
    if (schema.format === 'uuid') {
      options.push(
        hostileString,
        fc.uuid().map((id) => `{${id}}`),
        fc.uuid().map((id) => `urn:uuid:${id}`),
        fc.uuid().map((id) => id.replace(/-/g, '')),
        fc.uuid().map((id) => `${id}\n`),
        fc.uuid().map((id) => ` ${id}`),
        fc.uuid().map((id) => id.repeat(30)),
        fc.constant('٠٠٠٠٠٠٠٠-٠٠٠٠-٠٠٠٠-٠٠٠٠-٠٠٠٠٠٠٠٠٠٠٠٠'),
      );
    }
    if (schema.pattern?.startsWith('^') && schema.pattern.endsWith('$')) {
      options.push(
        hostileString.filter((text) => !new RegExp(schema.pattern!).test(text)),
        fc
          .tuple(valid, fc.constantFrom(' ', 'x', '\n', '\u0000', 'Ω', '٣', "' OR 1=1 --"), fc.boolean())
          .map(([text, extra, before]) => (before ? `${extra}${String(text)}` : `${String(text)}${extra}`)),
      );
    }
    if (schema.maxLength !== undefined) {
      options.push(
        fc.integer({ min: schema.maxLength + 1, max: schema.maxLength + 5_000 }).map((n) => 'x'.repeat(n)),
      );
    }
    if (schema.minLength) options.push(fc.constant(''));
  }
  if (schema.type === 'integer') {
    const around: number[] = [];
    if (schema.minimum !== undefined) around.push(schema.minimum - 1, schema.minimum - 1_000);
    if (schema.maximum !== undefined) around.push(schema.maximum + 1, schema.maximum * 1_000);
    options.push(fc.constantFrom(1.5, 2.000001, ...around));
  }
  if (schema.type === 'array') {
    const items = schema.items?.enum ?? [];
    if (schema.minItems) options.push(fc.constant([]));
    if (schema.uniqueItems && items.length)
      options.push(fc.constantFrom(...items).map((item) => [item, item]));
    if (schema.maxItems !== undefined && items.length) {
      options.push(fc.constant([...items, ...items].slice(0, schema.maxItems + 1)));
    }
    options.push(
      fc
        .constantFrom<unknown>(
          ...items.map((item) => String(item).toUpperCase()),
          1,
          null,
          ['roles'],
          {},
          ...HOSTILE_STRINGS.slice(0, 12),
        )
        .map((bad) => [bad]),
    );
  }
  if (schema.type === 'object' && schema.properties) {
    options.push(
      invalidObject(schema, {}).map(({ value }) => value),
      fc.constant({ unexpected: true }),
    );
  }
  return options.length ? fc.oneof(...options) : undefined;
}

/** A certainly refused value for the field: a wrong type or a broken constraint (null if required). */
export function invalidValue(
  schema: Schema,
  references: readonly string[] | undefined,
  required: boolean,
): fc.Arbitrary<Sample> {
  const kinds: fc.Arbitrary<Sample>[] = [wrongType(schema).map((value) => ({ value, defect: 'wrong type' }))];
  const broken = brokenConstraint(schema, validValue(schema, references));
  if (broken) kinds.push(broken.map((value) => ({ value, defect: 'broken constraint' })));
  if (required) kinds.push(fc.constant({ value: null, defect: 'null' }));
  return fc.oneof(...kinds);
}

/**
 * A well-formed value that names nothing: a field the fixtures give values for (an id, a key) with
 * a fresh value of the right shape. The API must refuse it once it looks the value up.
 */
export function unknownReference(schema: Schema, references: readonly string[]): fc.Arbitrary<Sample> {
  return validValue(schema, undefined)
    .filter((value) => !references.includes(value as string))
    .map((value) => ({ value, defect: 'unknown reference' }));
}

/** Digit runs a date, a time or a counter may not hold, by their length. */
const EDGE_DIGITS: Record<number, string[]> = {
  1: ['0', '9'],
  2: ['31', '00', '13', '24', '29', '30', '60', '99'],
  3: ['000', '999'],
  4: ['0000'],
  6: ['000000', '999999'],
};

/**
 * A fixture's opaque token (base64url of text, like a page cursor) decoded, one to three of its
 * digit runs replaced by edge values (day 30 of February, hour 24, year 0000...), and encoded again.
 * It may still be valid, so it is noise: the API may answer 200 or 400, never 500.
 */
export function tamperedReference(references: readonly string[]): fc.Arbitrary<Sample> | undefined {
  const opaque = references.filter((value) => {
    if (!/^[A-Za-z0-9_-]{8,}$/.test(value) || /^[0-9a-f-]{36}$/i.test(value)) return false;
    const decoded = Buffer.from(value, 'base64url').toString('utf8');
    return /^[\x20-\x7e]+$/.test(decoded) && /\d/.test(decoded);
  });
  if (opaque.length === 0) return undefined;
  // Mostly the leading runs: a cursor leads with its time, the fields most likely to be parsed.
  const pick = fc.oneof({ weight: 3, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.nat(40) });
  return fc
    .tuple(fc.constantFrom(...opaque), fc.array(fc.tuple(pick, fc.nat()), { minLength: 1, maxLength: 3 }))
    .map(([value, picks]) => {
      const runs = Buffer.from(value, 'base64url').toString('utf8').split(/(\d+)/);
      for (const [position, choice] of picks) {
        const index = 2 * (position % Math.floor(runs.length / 2)) + 1;
        const run = runs[index];
        const edges = EDGE_DIGITS[run.length] ?? ['0'.repeat(run.length), '9'.repeat(run.length)];
        runs[index] = edges[choice % edges.length];
      }
      return { value: Buffer.from(runs.join(''), 'utf8').toString('base64url'), noise: 'tampered token' };
    });
}

/** A hostile value the contract allows: text in a free-text field, null for an optional one. */
export function noiseValue(schema: Schema, required: boolean): fc.Arbitrary<Sample> | undefined {
  const options: fc.Arbitrary<Sample>[] = [];
  if (schema.type === 'string' && !schema.enum && !schema.pattern && !schema.format) {
    const max = schema.maxLength ?? 200;
    options.push(
      anyText
        .filter((text) => text.length >= (schema.minLength ?? 0) && text.length <= max)
        .map((value) => ({ value, noise: 'hostile text' })),
    );
  }
  if (!required) options.push(fc.constant({ value: null, noise: 'null for an optional field' }));
  return options.length ? fc.oneof(...options) : undefined;
}

/**
 * An object for the body schema that is certainly refused: at least one field defect (wrong type,
 * broken constraint, a missing required field, an unknown field, a reference to nothing), other
 * fields valid or hostile-but-allowed.
 */
export function invalidObject(
  schema: Schema,
  references: Record<string, readonly string[]>,
): fc.Arbitrary<{ value: Record<string, unknown>; defects: string[]; noise: string[] }> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const field = ([name, property]: [string, Schema]) => {
    const isRequired = required.has(name);
    const fieldReferences = references[name];
    const defective: fc.Arbitrary<Sample | undefined>[] = [
      invalidValue(property, fieldReferences, isRequired),
    ];
    if (isRequired) defective.push(fc.constant(undefined));
    if (fieldReferences) defective.push(unknownReference(property, fieldReferences));
    const noise = noiseValue(property, isRequired);
    const fine: fc.Arbitrary<Sample | undefined>[] = [
      validValue(property, fieldReferences).map((value) => ({ value })),
      ...(noise ? [noise] : []),
    ];
    if (!isRequired) fine.push(fc.constant(undefined));
    return {
      defective: fc.oneof(...defective).map((sample) => sample ?? { value: undefined, defect: 'missing' }),
      fine: fc.oneof(...fine).map((sample) => sample ?? { value: undefined }),
    };
  };
  const fields = properties.map(field);
  const unknownField = fc
    .tuple(
      fc.constantFrom(
        'is_admin',
        'role',
        'guild_id',
        'owner',
        '$where',
        '$gt',
        'payer_user_id',
        'status',
        'a',
      ),
      fc.oneof(hostileString, fc.constantFrom<unknown>(true, 1, null, ...HOSTILE_OBJECTS)),
    )
    .filter(([name]) => !(name in (schema.properties ?? {})));
  // JSON.parse keeps these as own keys; whether a parser then drops them is not the contract's business.
  const prototypeKey = fc.tuple(
    fc.constantFrom('__proto__', 'constructor', 'prototype'),
    fc.constantFrom(...HOSTILE_OBJECTS),
  );
  const candidates = properties.length + 1;
  return fc
    .record({
      broken: fc.uniqueArray(fc.nat(candidates - 1), { minLength: 1, maxLength: candidates }),
      defective: fc.tuple(...fields.map((f) => f.defective)),
      fine: fc.tuple(...fields.map((f) => f.fine)),
      unknown: unknownField,
      pollution: fc.option(prototypeKey, { nil: undefined }),
    })
    .map(({ broken, defective, fine, unknown, pollution }) => {
      const entries: [string, unknown][] = [];
      const defects: string[] = [];
      const noise: string[] = [];
      properties.forEach(([name], index) => {
        const sample = broken.includes(index) ? defective[index] : fine[index];
        if (sample.defect) defects.push(`${name}: ${sample.defect}`);
        if (sample.noise) noise.push(`${name}: ${sample.noise}`);
        if (sample.value !== undefined) entries.push([name, sample.value]);
      });
      if (broken.includes(properties.length)) {
        entries.push(unknown);
        defects.push(`${unknown[0]}: unknown field`);
      }
      if (pollution) {
        entries.push(pollution);
        noise.push(`${pollution[0]}: prototype key`);
      }
      return { value: ownKeys(entries), defects, noise };
    });
}

/** The gateway's and every service's body limit. */
export const BODY_LIMIT = 1024 * 1024;

/** A request the property sends: what was generated, and why it must (or may) be refused. */
export interface BadRequest {
  operation: string;
  method: string;
  /** Path and query, already encoded as sent on the wire. */
  target: string;
  persona: 'owner' | 'member' | 'anonymous';
  headers: Record<string, string>;
  body?: string;
  /** Certain breaches of the contract: any of them must make the answer a 4xx. */
  defects: string[];
  /** Hostile but allowed parts (injection text in free text, prototype keys): no verdict implied. */
  noise: string[];
}

/** How fast-check prints a counterexample: the wire request, bodies cut to something readable. */
export function describeRequest(request: BadRequest): string {
  const body = request.body;
  const shownBody =
    body === undefined
      ? '(no body)'
      : body.length > 600
        ? `${JSON.stringify(body.slice(0, 300))}…(${body.length} chars)…${JSON.stringify(body.slice(-100))}`
        : JSON.stringify(body);
  const target = request.target.length > 600 ? `${request.target.slice(0, 600)}…` : request.target;
  return [
    `${request.method} ${target} as ${request.persona}`,
    `headers ${JSON.stringify(request.headers)}`,
    `body ${shownBody}`,
    `defects ${JSON.stringify(request.defects)} noise ${JSON.stringify(request.noise)}`,
  ].join('\n  ');
}

export function withDescription(request: BadRequest): BadRequest {
  return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
}

/** Percent-encodes every byte outside the unreserved set; lone surrogates become U+FFFD. */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

const printable = (text: string) => /^[\x20-\x7e]*$/.test(text);
const HEADER_SAFE_HOSTILE = HOSTILE_STRINGS.filter((text) => printable(text) && text.length > 0);

/**
 * What the generators know of the world: values that exist, by the name the document gives the
 * parameter or field (ids of the context, the owner's customer key...), and two sessions: the
 * owner of every fixture, and a member of the owner's guild who may do nothing with it.
 */
export interface RequestContext {
  references: Record<string, readonly string[]>;
  ownerToken: string;
  memberToken: string;
}

/** A path segment for a parameter: a fixture's id, or one of many ways of not being one. */
function pathSegment(parameter: Parameter, context: RequestContext, mode: Mode): fc.Arbitrary<Sample> {
  const references = context.references[parameter.name] ?? [];
  const broken = fc.oneof(
    fc.uuid().map((id) => ({ value: id, defect: `${parameter.name}: uuid of nothing` })),
    fc
      .constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff')
      .map((id) => ({ value: id, defect: `${parameter.name}: uuid of nothing` })),
    fc
      .constantFrom(...HOSTILE_STRINGS, 'abc', '1', 'null', 'undefined', 'true', '-1', '0x10')
      .map((text) => ({ value: percentEncode(text), defect: `${parameter.name}: not a uuid` })),
    fc
      .constantFrom(
        '..',
        '.',
        '..%2F..%2Finternal%2Fv1%2Fplans',
        '%2e%2e',
        '..%5c..%5c',
        '%',
        '%zz',
        '%E0%A4%A',
        '%00',
        '',
      )
      .map((raw) => ({ value: raw, defect: `${parameter.name}: traversal or bad encoding` })),
    fc
      .integer({ min: 300, max: 6_000 })
      .map((length) => ({ value: 'a'.repeat(length), defect: `${parameter.name}: very long` })),
    fc
      .constantFrom('é', '𝕏🙂', '٠١٢٣', '０１２３', '\u202e', 'Ω')
      .map((text) => ({ value: percentEncode(text), defect: `${parameter.name}: unicode` })),
  );
  if (mode === 'break' || references.length === 0) return broken;
  const fine = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...references).map((value): Sample => ({ value })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...references)
        .map((value): Sample => ({ value: value.toUpperCase(), noise: `${parameter.name}: upper-case id` })),
    },
  );
  return mode === 'clean' ? fine : fc.oneof({ weight: 2, arbitrary: fine }, { weight: 1, arbitrary: broken });
}

interface QueryPart {
  pairs: string[];
  defects: string[];
  noise: string[];
}

/** One declared query parameter: left out, valid, wrong, repeated or huge. */
function queryParameter(parameter: Parameter, context: RequestContext, mode: Mode): fc.Arbitrary<QueryPart> {
  const { name, schema } = parameter;
  const references = context.references[name];
  const key = percentEncode(name);
  const pair = (value: unknown) => `${key}=${percentEncode(String(value))}`;
  // A boolean query value is read as `=== 'true'`: nothing is certainly refused.
  const certain = schema.type !== 'boolean';
  const verdict = (label: string): Pick<QueryPart, 'defects' | 'noise'> =>
    certain ? { defects: [`${name}: ${label}`], noise: [] } : { defects: [], noise: [`${name}: ${label}`] };
  // A query value is text: JSON values as their JSON, deep nesting left to the bodies.
  const asText = (value: unknown) =>
    value instanceof RawJson ? value.text : typeof value === 'string' ? value : JSON.stringify(value);
  const wrong = invalidValue(schema, references, true).filter((sample) => asText(sample.value).length <= 200);
  const invalid: fc.Arbitrary<QueryPart>[] = [
    wrong.map((sample) => ({ pairs: [pair(asText(sample.value))], ...verdict(sample.defect ?? 'invalid') })),
    fc.tuple(validValue(schema, references), wrong).map(([first, second]) => ({
      pairs: [pair(first), pair(asText(second.value))],
      ...verdict('repeated'),
    })),
    fc.integer({ min: 1_000, max: 6_000 }).map((length) => ({
      pairs: [`${key}=${'9'.repeat(length)}`],
      ...verdict('huge value'),
    })),
    fc
      .constantFrom('%', '%zz', '%E0%A4%A', '%00', '%FF%FE')
      .map((raw) => ({ pairs: [`${key}=${raw}`], ...verdict('bad encoding') })),
    fc.constantFrom('[$gt]=', '[$ne]=1', '[]=1&' + key + '[]=2', '[__proto__][x]=1').map((suffix) => ({
      pairs: [`${key}${suffix}`],
      ...verdict('bracket syntax'),
    })),
  ];
  if (references?.length)
    invalid.push(
      unknownReference(schema, references).map((sample) => ({
        pairs: [pair(sample.value)],
        ...verdict('unknown reference'),
      })),
    );
  if (parameter.required) invalid.push(fc.constant({ pairs: [], ...verdict('missing') }));
  const broken = fc.oneof(...invalid);
  if (mode === 'break') return broken;
  const fine: fc.Arbitrary<QueryPart>[] = [
    validValue(schema, references).map((value) => ({ pairs: [pair(value)], defects: [], noise: [] })),
  ];
  if (!parameter.required) fine.push(fc.constant({ pairs: [], defects: [], noise: [] }));
  const hostile = noiseValue(schema, true);
  if (hostile)
    fine.push(
      hostile.map((sample) => ({
        pairs: [pair(sample.value)],
        defects: [],
        noise: [`${name}: hostile text`],
      })),
    );
  // A tampered token is the one way into what decodes it: give it the weight of the rest together.
  const tampered = references && tamperedReference(references);
  if (tampered) {
    const part = tampered.map((sample) => ({
      pairs: [pair(sample.value)],
      defects: [],
      noise: [`${name}: tampered`],
    }));
    fine.push(...fine.map(() => part));
  }
  return mode === 'clean'
    ? fc.oneof(...fine)
    : fc.oneof({ weight: 3, arbitrary: fc.oneof(...fine) }, { weight: 2, arbitrary: broken });
}

/** Parameters nobody declared: extra keys, bracket and prototype syntax, empty pairs. */
const strayQuery: fc.Arbitrary<QueryPart> = fc
  .subarray([
    'x=1',
    'limit=5&limit=6',
    '__proto__[isAdmin]=true',
    'constructor[prototype][isAdmin]=true',
    'guild_id[$gt]=',
    '&&=&',
    `q=${percentEncode(`' OR 1=1 --`)}`,
    `callback=${percentEncode('<script>alert(1)</script>')}`,
  ])
  .map((pairs) => ({ pairs, defects: [], noise: pairs.length ? ['stray query parameters'] : [] }));

interface BodyPart {
  body?: string;
  headers: Record<string, string>;
  defects: string[];
  noise: string[];
}

/** JSON text a little over the body limit, shaped like the schema's object. */
export function oversize(schema: Schema | undefined): fc.Arbitrary<BodyPart> {
  return fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 100 * 1024 }).map((size) => {
    const field = Object.keys(schema?.properties ?? {})[0] ?? 'padding';
    const prefix = `{${JSON.stringify(field)}:"`;
    return {
      body: `${prefix}${'x'.repeat(size - prefix.length - 2)}"}`,
      headers: { 'content-type': 'application/json' },
      defects: [`body over 1 MiB (${size} bytes)`],
      noise: [],
    };
  });
}

const jsonHeaders = fc.constantFrom<Record<string, string>>(
  { 'content-type': 'application/json' },
  { 'content-type': 'application/json; charset=utf-8' },
  { 'content-type': 'Application/JSON' },
);

/** Not JSON, or JSON the parser refuses at the top level, sent as JSON: always a 400. */
export const unparsable: fc.Arbitrary<BodyPart> = fc
  .oneof(
    fc.constantFrom(
      '{',
      "{'a':1}",
      '{"a":1,}',
      'NaN',
      'undefined',
      '{"a":NaN}',
      '{"a":1}garbage',
      '\u0000',
      '<xml/>',
      'a=1&b=2',
      'null',
      '1',
      '"text"',
      'true',
      '{"a":"\\ud800\\u0000',
      '{"a": 1e309',
    ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).filter((text) => {
      try {
        const parsed: unknown = JSON.parse(text);
        return typeof parsed !== 'object' || parsed === null;
      } catch {
        return true;
      }
    }),
  )
  .chain((body) =>
    jsonHeaders.map((headers) => ({
      body,
      headers,
      defects: ['body is not a JSON object or array'],
      noise: [],
    })),
  );

/** The body's bytes with a transport the API cannot read: charset, encoding. Always refused. */
function unreadable(json: string): fc.Arbitrary<BodyPart> {
  return fc
    .constantFrom<Record<string, string>>(
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': 'application/json; charset=utf-16' },
      { 'content-type': 'application/json; charset=x-unknown' },
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      { 'content-type': 'application/json', 'content-encoding': 'deflate' },
      { 'content-type': 'application/json', 'content-encoding': 'xz' },
    )
    .map((headers) => ({
      body: json,
      headers,
      defects: [`unreadable body (${JSON.stringify(headers)})`],
      noise: [],
    }));
}

const otherContentTypes = fc.constantFrom<Record<string, string>>(
  { 'content-type': 'text/plain' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  { 'content-type': 'multipart/form-data; boundary=xyz' },
  { 'content-type': 'application/xml' },
  { 'content-type': 'application/json-patch+json' },
  {},
);

/** A body for an operation that takes one: mostly field defects, also every transport defect. */
function badBody(
  schema: Schema,
  references: Record<string, readonly string[]>,
  mode: Mode,
): fc.Arbitrary<BodyPart> {
  const needsFields = (schema.required ?? []).length > 0;
  const unlessFieldsNeeded = (label: string) =>
    needsFields ? { defects: [label], noise: [] } : { defects: [], noise: [label] };
  const valid = validObject(schema, references);
  const broken: fc.WeightedArbitrary<BodyPart>[] = [
    {
      weight: 8,
      arbitrary: fc.tuple(invalidObject(schema, references), jsonHeaders).map(([object, headers]) => ({
        body: toJsonText(object.value),
        headers,
        defects: object.defects,
        noise: object.noise,
      })),
    },
    { weight: 1, arbitrary: valid.chain((object) => unreadable(toJsonText(object))) },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, otherContentTypes).map(([object, headers]) => ({
        body: toJsonText(object),
        headers,
        ...unlessFieldsNeeded(`content type ${headers['content-type'] ?? 'missing'}`),
      })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.array(valid, { maxLength: 2 }), jsonHeaders).map(([items, headers]) => ({
        body: toJsonText(items),
        headers,
        ...unlessFieldsNeeded('an array instead of an object'),
      })),
    },
    { weight: 1, arbitrary: unparsable },
    {
      weight: 1,
      arbitrary: deeplyNested().map((nested) => ({
        body: nested.text.startsWith('{')
          ? nested.text
          : `{"${Object.keys(schema.properties ?? { a: 0 })[0]}":${nested.text}}`,
        headers: { 'content-type': 'application/json' },
        defects: [`nested ${nested.text.length / 2} deep`],
        noise: [],
      })),
    },
    { weight: 1, arbitrary: oversize(schema) },
    { weight: 1, arbitrary: fc.constant({ headers: {}, ...unlessFieldsNeeded('no body') }) },
  ];
  const certain = fc.oneof(...broken).filter((part) => part.defects.length > 0);
  if (mode === 'break') return certain;
  const hostile = fc
    .tuple(valid, fc.constantFrom(...HOSTILE_OBJECTS), jsonHeaders)
    .map(([object, pollution, headers]) => ({
      body: toJsonText(ownKeys([...Object.entries(object), ['__proto__', pollution]])),
      headers,
      defects: [],
      noise: ['__proto__ key'],
    }));
  const fine = fc.oneof(
    valid.map((object) => ({
      body: toJsonText(object),
      headers: { 'content-type': 'application/json' },
      defects: [],
      noise: [],
    })),
    hostile,
  );
  return mode === 'clean'
    ? fine
    : fc.oneof({ weight: 3, arbitrary: fc.oneof(...broken) }, { weight: 2, arbitrary: fine });
}

/** A body for an operation that takes none: ignored, unless the parser must refuse it. */
function strayBody(mode: Mode): fc.Arbitrary<BodyPart> {
  const certain = fc.oneof(unparsable, oversize(undefined));
  if (mode === 'break') return certain;
  const ignored = fc
    .oneof(
      fc
        .jsonValue({ maxDepth: 3 })
        .filter((value) => typeof value === 'object' && value !== null)
        .map((value) => JSON.stringify(value)),
      deeplyNested().map((nested) => nested.text),
      fc.constantFrom(...HOSTILE_OBJECTS).map(toJsonText),
    )
    .map((body) => ({
      body,
      headers: { 'content-type': 'application/json' },
      defects: [],
      noise: ['ignored body'],
    }));
  const fine = fc.oneof(
    { weight: 6, arbitrary: fc.constant<BodyPart>({ headers: {}, defects: [], noise: [] }) },
    { weight: 1, arbitrary: ignored },
  );
  return mode === 'clean'
    ? fine
    : fc.oneof({ weight: 3, arbitrary: fine }, { weight: 1, arbitrary: certain });
}

/**
 * Where a request breaks the contract. Every other part is then valid (or hostile but allowed), so
 * the broken part is what the API meets, however deep its check; `chaos` breaks anything at random.
 */
type Focus = 'none' | 'path' | 'query' | 'body' | 'persona' | 'anonymous' | 'method' | 'chaos';
/** How a part of a request is generated: certainly broken, valid, or either. */
type Mode = 'break' | 'clean' | 'any';

/** Headers nobody should trust: forged identity, junk request ids, forwarding claims. */
const strayHeaders = fc
  .subarray([
    ['x-internal-token', 'eyJhbGciOiJub25lIn0.eyJraW5kIjoidXNlciJ9.'],
    ['x-identity-user-id', '00000000-0000-0000-0000-000000000000'],
    ['x-forwarded-for', "127.0.0.1, ' OR 1=1 --"],
    ['accept', 'application/xml;q=2, */*;q=-1'],
  ] as [string, string][])
  .chain((pairs) =>
    fc
      .option(fc.constantFrom(...HEADER_SAFE_HOSTILE, 'x'.repeat(4_000)), { nil: undefined })
      .map((requestId) => {
        const headers = Object.fromEntries(pairs);
        if (requestId !== undefined) headers['x-request-id'] = requestId;
        return headers;
      }),
  );

/** Credentials that are not a session: none, junk, tampered, the wrong scheme. */
function anonymousCredentials(context: RequestContext): fc.Arbitrary<Record<string, string>> {
  return fc.constantFrom<Record<string, string>>(
    {},
    { authorization: 'Bearer ' },
    { authorization: `Bearer ${"' OR 1=1 --"}` },
    { authorization: `Bearer ${context.ownerToken}x` },
    { authorization: `Bearer ${context.ownerToken.slice(0, -2)}` },
    { authorization: 'Basic YWRtaW46YWRtaW4=' },
    { cookie: 'sid=%00%00; sid=1' },
    { cookie: `sid=${'A'.repeat(43)}` },
  );
}

/**
 * Requests for one operation, each with at least one certain defect unless the operation only
 * reads (GET) or is the login plumbing (public): a write with nothing wrong would change rows by
 * design, which is not bad input.
 */
export function requestsFor(operation: Operation, context: RequestContext): fc.Arbitrary<BadRequest> {
  // Login, callback and logout: never handed this suite's sessions (a logout would end them), and
  // answered without one by design (logout is always 204).
  const sessionPlumbing = operation.public || operation.path.startsWith('/auth/');
  const readsOnly = operation.method === 'GET' || sessionPlumbing;
  const referencesData =
    [...operation.pathParameters, ...operation.queryParameters].some(
      (parameter) => parameter.name in context.references,
    ) || Object.keys(operation.body?.properties ?? {}).some((name) => name in context.references);
  const focuses: fc.WeightedArbitrary<Focus>[] = [
    { weight: 2, arbitrary: fc.constant('body') },
    { weight: 1, arbitrary: fc.constant('method') },
    { weight: 2, arbitrary: fc.constant('chaos') },
  ];
  const allow = (name: Focus, weight = 1) => focuses.push({ weight, arbitrary: fc.constant(name) });
  if (readsOnly) allow('none', 4);
  if (operation.pathParameters.length) allow('path', 2);
  if (operation.queryParameters.length && operation.method === 'GET') allow('query', 2);
  if (!sessionPlumbing) allow('anonymous');
  if (!sessionPlumbing && referencesData) allow('persona');
  const wrongMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter(
    (method) => method !== operation.method && !operation.siblingMethods.includes(method),
  );
  const parts = (focus: Focus, broken: number) => {
    const mode = (part: Focus, index = 0): Mode =>
      focus === 'chaos' ? 'any' : focus === part && index === broken ? 'break' : 'clean';
    const pathParts = fc.tuple(
      ...operation.pathParameters.map((parameter, index) =>
        pathSegment(parameter, context, mode('path', index)),
      ),
    );
    const queryParts = fc.tuple(
      ...operation.queryParameters.map((parameter, index) =>
        queryParameter(parameter, context, mode('query', index)),
      ),
      focus === 'chaos'
        ? strayQuery
        : fc.oneof({ weight: 4, arbitrary: fc.constant({ pairs: [], defects: [], noise: [] }) }, strayQuery),
    );
    const bodyPart = operation.body
      ? badBody(operation.body, context.references, mode('body'))
      : strayBody(mode('body'));
    const persona: fc.Arbitrary<BadRequest['persona']> = sessionPlumbing
      ? fc.constant('anonymous')
      : focus === 'persona'
        ? fc.constant('member')
        : focus === 'anonymous'
          ? fc.constant('anonymous')
          : focus === 'chaos'
            ? fc.constantFrom('owner', 'owner', 'member', 'anonymous')
            : fc.constant('owner');
    return { pathParts, queryParts, bodyPart, persona };
  };
  const parameterCount = Math.max(operation.pathParameters.length, operation.queryParameters.length, 1);
  return fc.tuple(fc.oneof(...focuses), fc.nat(parameterCount - 1)).chain(([focus, broken]) => {
    const { pathParts, queryParts, bodyPart, persona } = parts(
      focus,
      broken %
        Math.max(focus === 'path' ? operation.pathParameters.length : operation.queryParameters.length, 1),
    );
    return fc
      .record({
        path: pathParts,
        query: queryParts,
        body: bodyPart,
        persona,
        credentials: anonymousCredentials(context),
        stray: strayHeaders,
        method: focus === 'method' ? fc.constantFrom(...wrongMethods) : fc.constant(operation.method),
      })
      .map(({ path, query, body, persona: who, credentials, stray, method }) => {
        let target = operation.path;
        const defects: string[] = [];
        const noise: string[] = [];
        operation.pathParameters.forEach((parameter, index) => {
          const sample = path[index];
          target = target.replace(`{${parameter.name}}`, String(sample.value));
          if (sample.defect) defects.push(sample.defect);
          if (sample.noise) noise.push(sample.noise);
        });
        const pairs = query.flatMap((part) => part.pairs);
        for (const part of query) {
          // Query parameters are only read by GETs; elsewhere they are stray.
          if (operation.method === 'GET') defects.push(...part.defects);
          else noise.push(...part.defects);
          noise.push(...part.noise);
        }
        if (pairs.length) target += `?${pairs.join('&')}`;
        defects.push(...body.defects);
        noise.push(...body.noise);
        if (method !== operation.method) defects.push(`method ${method} on a ${operation.method} route`);
        const session =
          who === 'owner'
            ? { authorization: `Bearer ${context.ownerToken}` }
            : who === 'member'
              ? { authorization: `Bearer ${context.memberToken}` }
              : credentials;
        if (who === 'anonymous' && !sessionPlumbing) defects.push('no session');
        // The member lacks MANAGE_GUILD and is not the payer: whatever the ids, not theirs to use.
        if (who === 'member' && referencesData) {
          defects.push('a member acting on the owner’s guild or subscription');
        }
        return withDescription({
          operation: `${operation.method} ${operation.path}`,
          method,
          target,
          persona: who,
          headers: { ...stray, ...session, ...body.headers },
          ...(body.body === undefined ? {} : { body: body.body }),
          defects,
          noise,
        });
      })
      .filter((request) => (readsOnly || request.defects.length > 0) && headBytes(request) <= HEAD_LIMIT);
  });
}

/**
 * Node's HTTP parser answers a request whose line and headers pass 16 KiB (its default
 * --max-http-header-size) with a bare 431 before any application code runs; the generators stay
 * below it, and the test of over-long heads sends the rest.
 */
export const HEAD_LIMIT = 15 * 1024;

export function headBytes(request: Pick<BadRequest, 'method' | 'target' | 'headers'>): number {
  return (
    request.method.length +
    request.target.length +
    Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0) +
    200
  );
}
