import { All, Controller, Req, Res, UseGuards } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { CommonErrors } from '@lib/problem-details';
import { GatewayErrors } from '../gateway.errors';
import type { RawBodyRequest } from '@lib/runtime';
import type { Response } from 'express';
import { CurrentSession, SessionGuard, type SessionRequest } from '../auth/session.guard';
import type { Session } from '../auth/sessions';
import { isRegistration, RegistrationCheck } from '../guilds/registration-check';
import { readForwardedBody } from './forwarded-body';
import { UpstreamProxy } from './upstream-proxy';
import { matchUpstream } from './upstream-routes';

/**
 * Every public route the gateway does not answer itself goes to the service that owns it. Login is
 * checked here (401) before any service sees the request, and before its body is read; what the
 * user may do is the service's business. Registered after the gateway's own controllers, so theirs
 * match first.
 */
@Controller()
@PublicRoute()
@UseGuards(SessionGuard)
export class ForwardingController {
  constructor(
    private readonly proxy: UpstreamProxy,
    private readonly registration: RegistrationCheck,
  ) {}

  @All(['api/v1/*path', 'subscriptions/*path'])
  async forward(
    @Req() req: RawBodyRequest & SessionRequest,
    @Res() res: Response,
    @CurrentSession() session: Session,
  ): Promise<void> {
    const match = matchUpstream(req.method, req.path);
    if (!match) throw GatewayErrors.routeNotFound();
    if ('notAllowed' in match) {
      res.setHeader('Allow', [...new Set(match.notAllowed)].join(', '));
      throw CommonErrors.methodNotAllowed(`Use ${match.notAllowed.join(' or ')}.`);
    }
    // Only now, with the caller known and the route served, is the body read.
    if (!(await readForwardedBody(req, res))) return;
    if (isRegistration(req.method, req.path)) {
      await this.registration.check(session, req.sessionToken, req.rawBody);
    }
    await this.proxy.forward(req, res, match.upstream, session);
  }
}
