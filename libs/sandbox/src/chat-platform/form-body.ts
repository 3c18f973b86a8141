import { type FieldErrors, platformError } from './platform-error';

type FieldPath = (string | number)[];

/** Gathers every bad field of one body, so the answer lists them all as the platform does (50035). */
class FormErrors {
  private readonly tree: FieldErrors = {};
  private count = 0;

  add(path: FieldPath, code: string, message: string): void {
    let node = this.tree;
    for (const key of path) {
      const child = node[String(key)];
      node = Array.isArray(child) || child === undefined ? (node[String(key)] = {}) : child;
    }
    const issues = node._errors;
    if (Array.isArray(issues)) issues.push({ code, message });
    else node._errors = [{ code, message }];
    this.count++;
  }

  throwIfAny(): void {
    if (this.count > 0) throw platformError.invalidFormBody(this.tree);
  }
}

const SNOWFLAKE = /^\d{1,20}$/;
const INTEGER_STRING = /^\d{1,30}$/;

interface Presence {
  /** Absent or null is an error. */
  required?: boolean;
}

/**
 * Reads a JSON request body field by field with the platform's validation messages. A getter
 * returns undefined for an absent field and null for an explicit null; a wrong value is recorded
 * and `check()` then answers 400 Invalid Form Body.
 */
export class FormBody {
  private constructor(
    private readonly value: Record<string, unknown>,
    private readonly errors: FormErrors,
    private readonly path: FieldPath,
  ) {}

  static object(body: unknown): FormBody {
    const errors = new FormErrors();
    if (!isRecord(body)) {
      errors.add([], 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
      errors.throwIfAny();
    }
    return new FormBody(body as Record<string, unknown>, errors, []);
  }

  /**
   * A query string read like a body: the named parameters as numbers when they are integers (so
   * `integer()` checks them), every other parameter as the text sent.
   */
  static query(query: URLSearchParams, integerNames: readonly string[]): FormBody {
    const fields: Record<string, unknown> = {};
    for (const [name, value] of query) {
      fields[name] = integerNames.includes(name) && /^-?\d+$/.test(value) ? Number(value) : value;
    }
    return FormBody.object(fields);
  }

  /** A body that is a JSON array of objects, such as a position update. */
  static list(body: unknown): FormBody[] {
    const errors = new FormErrors();
    if (!Array.isArray(body)) {
      errors.add([], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
      errors.throwIfAny();
    }
    return (body as unknown[]).map((item, index) => {
      if (isRecord(item)) return new FormBody(item, errors, [index]);
      errors.add([index], 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
      return new FormBody({}, errors, [index]);
    });
  }

  has(field: string): boolean {
    return this.value[field] !== undefined;
  }

  string(
    field: string,
    options: Presence & { min?: number; max?: number; oneOf?: readonly string[] } = {},
  ): string | null | undefined {
    const raw = this.present(field, options);
    if (raw === undefined || raw === null) return raw;
    if (typeof raw !== 'string') return this.fail(field, 'BASE_TYPE_STRING', 'Must be a string.');
    if (options.oneOf && !options.oneOf.includes(raw)) {
      return this.fail(field, 'BASE_TYPE_CHOICES', `Value must be one of {${options.oneOf.join(', ')}}.`);
    }
    const { min = 0, max = Number.POSITIVE_INFINITY } = options;
    if (raw.length < min || raw.length > max) {
      return this.fail(field, 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
    }
    return raw;
  }

  integer(
    field: string,
    options: Presence & { min?: number; max?: number; oneOf?: readonly number[] } = {},
  ): number | null | undefined {
    const raw = this.present(field, options);
    if (raw === undefined || raw === null) return raw;
    if (typeof raw !== 'number' || !Number.isInteger(raw)) {
      return this.fail(field, 'NUMBER_TYPE_COERCE', `Value "${shown(raw)}" is not int.`);
    }
    if (options.oneOf && !options.oneOf.includes(raw)) {
      return this.fail(field, 'BASE_TYPE_CHOICES', `Value must be one of {${options.oneOf.join(', ')}}.`);
    }
    if (options.min !== undefined && raw < options.min) {
      return this.fail(
        field,
        'NUMBER_TYPE_MIN',
        `Int value should be greater than or equal to ${options.min}.`,
      );
    }
    if (options.max !== undefined && raw > options.max) {
      return this.fail(field, 'NUMBER_TYPE_MAX', `Int value should be less than or equal to ${options.max}.`);
    }
    return raw;
  }

  boolean(field: string): boolean | null | undefined {
    const raw = this.present(field, {});
    if (raw === undefined || raw === null) return raw;
    if (typeof raw !== 'boolean')
      return this.fail(field, 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
    return raw;
  }

  snowflake(field: string, options: Presence = {}): string | null | undefined {
    const raw = this.present(field, options);
    if (raw === undefined || raw === null) return raw;
    const text = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
    if (typeof text !== 'string' || !SNOWFLAKE.test(text)) {
      return this.fail(field, 'NUMBER_TYPE_COERCE', `Value "${shown(raw)}" is not snowflake.`);
    }
    return text;
  }

  /** A permission bit set, sent as a decimal string; returned in canonical form. */
  permissions(field: string): string | null | undefined {
    const raw = this.present(field, {});
    if (raw === undefined || raw === null) return raw;
    const text = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : raw;
    if (typeof text !== 'string' || !INTEGER_STRING.test(text)) {
      return this.fail(field, 'NUMBER_TYPE_COERCE', `Value "${shown(raw)}" is not int.`);
    }
    return BigInt(text).toString();
  }

  snowflakes(field: string): string[] | null | undefined {
    const raw = this.present(field, {});
    if (raw === undefined || raw === null) return raw;
    if (!Array.isArray(raw)) {
      return this.fail(field, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    }
    const nested = new FormBody({ ...raw }, this.errors, [...this.path, field]);
    return raw.map((_, index) => nested.snowflake(String(index), { required: true }) ?? '');
  }

  /** A list of strings: at most `max` of them, each `min` to `maxLength` characters. */
  strings(
    field: string,
    options: { max?: number; min?: number; maxLength?: number } = {},
  ): string[] | null | undefined {
    const raw = this.present(field, {});
    if (raw === undefined || raw === null) return raw;
    if (!Array.isArray(raw)) {
      return this.fail(field, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    }
    if (options.max !== undefined && raw.length > options.max) {
      return this.fail(field, 'BASE_TYPE_MAX_LENGTH', `Must be ${options.max} or fewer in length.`);
    }
    const nested = new FormBody({ ...raw }, this.errors, [...this.path, field]);
    const limits = { required: true, min: options.min, max: options.maxLength };
    return raw.map((_, index) => nested.string(String(index), limits) ?? '');
  }

  objects(field: string, options: { max?: number } = {}): FormBody[] | null | undefined {
    const raw = this.present(field, {});
    if (raw === undefined || raw === null) return raw;
    if (!Array.isArray(raw)) {
      return this.fail(field, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    }
    if (options.max !== undefined && raw.length > options.max) {
      return this.fail(field, 'BASE_TYPE_MAX_LENGTH', `Must be ${options.max} or fewer in length.`);
    }
    return raw.map((item, index) => {
      const path = [...this.path, field, index];
      if (isRecord(item)) return new FormBody(item, this.errors, path);
      this.errors.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
      return new FormBody({}, this.errors, path);
    });
  }

  /** An object field, read field by field like the body (its errors nested under its name). */
  nested(field: string): FormBody | null | undefined {
    const raw = this.present(field, {});
    if (raw === undefined || raw === null) return raw;
    if (!isRecord(raw))
      return this.fail(field, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    return new FormBody(raw, this.errors, [...this.path, field]);
  }

  /** The field as sent, for values the fake stores without interpreting (message embeds). */
  raw(field: string): unknown {
    return this.value[field];
  }

  fail(field: string, code: string, message: string): undefined {
    this.errors.add([...this.path, field], code, message);
    return undefined;
  }

  /** Answers 400 Invalid Form Body when any field read so far was wrong. */
  check(): void {
    this.errors.throwIfAny();
  }

  private present(field: string, { required = false }: Presence): unknown {
    const raw = this.value[field];
    if ((raw === undefined || raw === null) && required) {
      this.errors.add([...this.path, field], 'BASE_TYPE_REQUIRED', 'This field is required');
      return undefined;
    }
    return raw;
  }
}

function shown(raw: unknown): string {
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
