import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
} from '@nestjs/common';
import { CommonErrors } from '@lib/problem-details';
import type { Request, Response } from 'express';
import { CookieOriginCheck } from './cookie-origin.check';
import { RateLimiter } from './rate-limiter';
import { sessionToken } from './session-token';
import { type Session, Sessions } from './sessions';

export const RATE_LIMITS = Symbol('RATE_LIMITS');
export interface RateLimits {
  perSession: number;
  perIp: number;
}

export type SessionRequest = Request & { session?: Session; sessionToken?: string };

/**
 * Routes of a logged-in user: refuses a cookie-authenticated change from another origin (403,
 * `CookieOriginCheck`), resolves the session (401 without a live one) and counts the request against
 * the session's rate limit. Nothing of the body has been read when it refuses.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly sessions: Sessions,
    private readonly limiter: RateLimiter,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
    private readonly origin: CookieOriginCheck,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<SessionRequest>();
    this.origin.assert(req);
    const token = sessionToken(req);
    const session = token ? await this.sessions.find(token) : null;
    if (!session) throw CommonErrors.unauthenticated('Log in with the chat platform first (/auth/login).');
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
  if (!session) throw CommonErrors.unauthenticated();
  return session;
});
