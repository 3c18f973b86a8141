import { registerDecorator } from 'class-validator';

/**
 * An absolute http(s) URL a browser loads, which must be https when `NODE_ENV` is `production`: a
 * script or page fetched over plain http could be swapped on the way (e.g. the payment provider's
 * SDK, docs/billing-in-the-dashboard.md). Plain http stays allowed for development and tests (loopback).
 */
export function IsBrowserUrl() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isBrowserUrl',
      target: target.constructor,
      propertyName,
      options: {
        message: ({ object }) =>
          (object as { NODE_ENV?: string }).NODE_ENV === 'production'
            ? `${propertyName} must be an https URL in production`
            : `${propertyName} must be an http(s) URL`,
      },
      validator: {
        validate: (value: unknown, args) =>
          browserUrlProblem(value, (args?.object as { NODE_ENV?: string }).NODE_ENV === 'production') ===
          null,
      },
    });
}

/** Why `value` is not a URL a browser may load here, or null when it is. */
export function browserUrlProblem(value: unknown, production: boolean): string | null {
  if (typeof value !== 'string') return 'not a string';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not an absolute URL';
  }
  if (url.username || url.password) return 'has credentials';
  if (production) return url.protocol === 'https:' ? null : 'not https';
  return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'not http(s)';
}
