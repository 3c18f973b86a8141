import { ValidationPipe, type ValidationError as ClassValidatorError } from '@nestjs/common';
import { ValidationError } from '@lib/problem-details';

export interface FieldError {
  field: string;
  message: string;
}

/** class-validator's rules that check what kind of value a field holds: reported before any other. */
const TYPE_RULES = new Set([
  'isString',
  'isNumber',
  'isInt',
  'isBoolean',
  'isArray',
  'isObject',
  'isDate',
  'isDateString',
  'isUuid',
  'isEnum',
  'nestedValidation',
]);

/** class-validator's default wordings, said more plainly (a DTO's own messages are left as they are). */
const PLAIN_WORDS: [RegExp, string][] = [
  [/^All (.+)'s elements must be unique$/, '$1 must not name an item twice'],
  [/^(.+) must contain no more than (\d+) elements$/, '$1 must have at most $2 items'],
  [/^(.+) must contain at least (\d+) elements$/, '$1 must have at least $2 items'],
  [/^(.+) must be shorter than or equal to (\d+) characters$/, '$1 must be at most $2 characters long'],
  [/^(.+) must be longer than or equal to (\d+) characters$/, '$1 must be at least $2 characters long'],
  [/^(.+) must not be less than (-?[\d.]+)$/, '$1 must be at least $2'],
  [/^(.+) must not be greater than (-?[\d.]+)$/, '$1 must be at most $2'],
  [/^(.+) must be an integer number$/, '$1 must be a whole number'],
  [/^(.+) must be a boolean value$/, '$1 must be true or false'],
  [/^each value in (.+) must be one of the following values: (.+)$/, 'each item of $1 must be one of $2'],
  [/^(.+) must be one of the following values: (.+)$/, '$1 must be one of $2'],
];

function plainly(message: string): string {
  for (const [pattern, wording] of PLAIN_WORDS) {
    if (pattern.test(message)) return message.replace(pattern, wording);
  }
  return message;
}

/**
 * The one thing to say about a field: that it is not a field of the request, that it is missing,
 * or the first rule it breaks. class-validator lists a field's rules from the last decorator
 * written to the first; the first written is the most basic, and a rule about the kind of value
 * comes before any about its size or contents (a number is "not a string", not "too long").
 */
function firstFailure(error: ClassValidatorError, field: string): string | undefined {
  const constraints = error.constraints ?? {};
  const rules = Object.keys(constraints).reverse();
  if (rules.length === 0) return undefined;
  if (constraints.whitelistValidation) return `${field} is not a field of this request`;
  // The value of a field with nested errors is left out (`in` tells that from a missing field).
  if ('value' in error && error.value === undefined) return `${field} is required`;
  const rule = rules.find((name) => TYPE_RULES.has(name)) ?? rules[0];
  return plainly(constraints[rule]);
}

/** One error per failing field (a nested field named by its path, `options.create_pre_restore_snapshot`). */
export function fieldErrors(errors: ClassValidatorError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const message = firstFailure(error, field);
    return [...(message ? [{ field, message }] : []), ...fieldErrors(error.children ?? [], field)];
  });
}

/**
 * DTO validation for every app: unknown fields refused, and every bad field listed in the problem
 * body with the first rule it breaks (not every rule, which for one wrong value reads as a pile of
 * contradictions).
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const list = fieldErrors(errors);
      return new ValidationError(list.map((e) => e.message).join('; ') || 'Request is not valid.', list);
    },
  });
}
