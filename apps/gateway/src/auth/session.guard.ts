import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
} from '@nestjs/common';
import { UnauthenticatedError } from '@lib/problem-details';
import { parse as parseCookies } from 'cookie';
import type { Request, Response } from 'express';
import { RateLimiter } from './rate-limiter';
import { type Session, Sessions } from './sessions';

export const SESSION_COOKIE = 'sid';
export const RATE_LIMITS = Symbol('RATE_LIMITS');
export interface RateLimits {
  perSession: number;
  perIp: number;
}

export type SessionRequest = Request & { session?: Session; sessionToken?: string };

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

/**
 * Routes of a logged-in user: resolves the session (401 without a live one) and counts the request
 * against the session's rate limit.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly sessions: Sessions,
    private readonly limiter: RateLimiter,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<SessionRequest>();
    const token = sessionToken(req);
    const session = token ? await this.sessions.find(token) : null;
    if (!session) throw new UnauthenticatedError('Log in with the chat platform first (/auth/login).');
    await this.limiter.consume(
      `s:${session.session_id}`,
      this.limits.perSession,
      context.switchToHttp().getResponse<Response>(),
    );
    req.session = session;
    req.sessionToken = token;
    return true;
  }
}

export const CurrentSession = createParamDecorator((_: unknown, context: ExecutionContext): Session => {
  const session = context.switchToHttp().getRequest<SessionRequest>().session;
  if (!session) throw new UnauthenticatedError();
  return session;
});
