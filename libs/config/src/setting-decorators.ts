import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

/**
 * The checks settings share, each named for what it accepts, so every app's `*.env.ts` reads as a
 * list of settings and two apps reading the same kind of value check it the same way. Messages name
 * the variable (`$property`), as the checks written out in each class did.
 */

/** `@IsUrl` options for the URLs of sibling services and fakes: loopback and cluster hosts have no TLD. */
export const HTTP_URL = { require_tld: false, protocols: ['http', 'https'] };

/** Implicit conversion would read "false" as true; env booleans are spelled true/false/1/0. */
export function parseBoolean(raw: unknown): unknown {
  if (raw === undefined || typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  return raw;
}

/** A boolean spelled `true`/`false`/`1`/`0`. */
export function IsEnvBoolean() {
  return applyDecorators(
    IsIn([true, false]),
    Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => parseBoolean(obj[key])),
  );
}

/** An empty value counts as unset (`VAR=` in an env file or a manifest leaves the setting out). */
export function EmptyIsUnset() {
  return Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value));
}

/** An http(s) URL of a sibling service, the platform or the provider (or their fakes). */
export function IsHttpUrl() {
  return IsUrl(HTTP_URL, { message: '$property must be an http(s) URL' });
}

/** A whole number from `min` up to `max` (no upper bound without one). */
export function IsIntegerInRange(min: number, max?: number) {
  return max === undefined
    ? applyDecorators(IsInt(), Min(min))
    : applyDecorators(IsInt(), Min(min), Max(max));
}

/** A string that must be given and not be empty: a secret or a key the app cannot start without. */
export function IsRequiredString() {
  return applyDecorators(IsString(), IsNotEmpty({ message: '$property must be set' }));
}

/** An optional `redis://` (or `rediss://`) URL; unset or empty, the app keeps its keys in Postgres. */
export function IsOptionalRedisUrl() {
  return applyDecorators(
    EmptyIsUnset(),
    IsOptional(),
    Matches(/^rediss?:\/\/.+/, { message: '$property must be a redis:// URL' }),
  );
}
