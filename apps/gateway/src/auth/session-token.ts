import type { Request } from 'express';
import { parse as parseCookies } from 'cookie';

export const SESSION_COOKIE = 'sid';

/** The value of one cookie the request carries. */
export function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parseCookies(header)[name] : undefined;
}

/** The session token a request carries: `Authorization: Bearer <token>` first, else the `sid` cookie. */
export function sessionToken(req: Request): string | undefined {
  const authorization = req.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice('Bearer '.length).trim();
  return cookieValue(req, SESSION_COOKIE);
}
