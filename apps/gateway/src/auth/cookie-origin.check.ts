import { Inject, Injectable } from '@nestjs/common';
import { GatewayErrors } from '../gateway.errors';
import type { Request } from 'express';
import { cookieValue, SESSION_COOKIE } from './session-token';

export const TRUSTED_ORIGINS = Symbol('TRUSTED_ORIGINS');

/** RFC 9110 §9.2.1: methods that change something. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery defence for the `sid` cookie. A browser attaches the cookie to a
 * request another site makes it send; SameSite=Lax stops most of them, but not one from a sibling
 * subdomain or an old browser. So a request that changes something and is authenticated by the
 * cookie must say it comes from the dashboard: `Sec-Fetch-Site: same-origin`, or an `Origin` the
 * gateway trusts (DASHBOARD_URL's). Browsers send both on such requests and scripts cannot forge
 * them; a client that is not a browser authenticates with `Authorization: Bearer` instead, which no
 * other site can make a browser send.
 */
@Injectable()
export class CookieOriginCheck {
  constructor(@Inject(TRUSTED_ORIGINS) private readonly origins: readonly string[]) {}

  assert(req: Request): void {
    if (!UNSAFE_METHODS.has(req.method)) return;
    if (req.headers.authorization?.startsWith('Bearer ')) return;
    if (cookieValue(req, SESSION_COOKIE) === undefined) return;
    if (req.headers['sec-fetch-site'] === 'same-origin') return;
    const origin = req.headers.origin;
    if (origin !== undefined && this.origins.includes(origin)) return;
    throw GatewayErrors.crossOriginRequest();
  }
}
