import { Controller, Get, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { ApiFoundResponse, ApiOkResponse, ApiQuery, ApiOperation } from '@nestjs/swagger';
import { KEY_VALUE_STORE, type KeyValueStore } from '@lib/key-value';
import { ProblemAnswers, ValidationError } from '@lib/problem-details';
import { GatewayErrors } from '../gateway.errors';
import type { CookieOptions, Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import { PlatformOAuthClient } from './platform-oauth.client';
import { CookieOriginCheck } from './cookie-origin.check';
import { cookieValue, SESSION_COOKIE, sessionToken } from './session-token';
import { Sessions } from './sessions';
import { type UserView, toUserView } from './user-view';
import { UsersRepository } from './users.repository';

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');
export interface AuthOptions {
  dashboardUrl: string;
  /** Secure cookies (HTTPS only); off only in development and tests on plain http. */
  secureCookies: boolean;
  sessionTtlSeconds: number;
}

const STATE_COOKIE = 'oauth_state';
const STATE_TTL_S = 600;
const STATE_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export interface LoginView {
  token: string;
  token_type: 'Bearer';
  expires_at: string;
  user: UserView;
}

/**
 * docs/behaviour.md §5.1: OAuth 2.0 authorization-code login with the chat platform. The `state` is random, kept
 * in the key-value store for 10 minutes and in a cookie of the browser that started the login: the
 * callback needs both (a login someone else started cannot be completed in your browser), and each
 * works once (the callback takes the state out of the store).
 * A browser gets the `sid` cookie and is sent to the dashboard; a client that asks for JSON
 * (`Accept: application/json`) gets the token to send as `Authorization: Bearer`.
 */
@Controller('auth')
@PublicRoute()
export class AuthController {
  constructor(
    private readonly oauth: PlatformOAuthClient,
    private readonly users: UsersRepository,
    private readonly sessions: Sessions,
    @Inject(KEY_VALUE_STORE) private readonly store: KeyValueStore,
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
    private readonly origin: CookieOriginCheck,
  ) {}

  @ApiOperation({ summary: 'Start login' })
  @Get('login')
  @ApiFoundResponse({ description: "To the platform's authorize page (a browser)." })
  @ApiOkResponse({ description: '`{ authorize_url }` for a client that sends `Accept: application/json`.' })
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    const state = randomBytes(24).toString('base64url');
    await this.store.set(`oauth:state:${state}`, '1', STATE_TTL_S);
    res.cookie(STATE_COOKIE, state, this.cookie('/auth', STATE_TTL_S));
    const authorizeUrl = this.oauth.authorizeUrl(state);
    if (wantsJson(req)) res.status(200).json({ authorize_url: authorizeUrl });
    else res.redirect(302, authorizeUrl);
  }

  @ApiOperation({ summary: 'Complete login' })
  @ProblemAnswers(GatewayErrors.invalidOAuthState, GatewayErrors.loginFailed, GatewayErrors.loginDenied)
  @Get('callback')
  @ApiQuery({ name: 'code', required: false, description: 'From the platform, on consent.' })
  @ApiQuery({ name: 'state', required: true, description: 'The state /auth/login issued.' })
  @ApiQuery({ name: 'error', required: false, description: 'From the platform, when the user declined.' })
  @ApiFoundResponse({ description: 'To the dashboard, with the `sid` cookie (a browser).' })
  @ApiOkResponse({ description: '`{ token, token_type, expires_at, user }` for `Accept: application/json`.' })
  async callback(
    @Req() req: Request,
    @Res() res: Response,
    @Query('code') code?: string,
    @Query('state') state?: string,
    @Query('error') error?: string,
  ): Promise<void> {
    const cookieState = cookieValue(req, STATE_COOKIE);
    res.clearCookie(STATE_COOKIE, this.cookie('/auth'));
    const known =
      typeof state === 'string' &&
      STATE_PATTERN.test(state) &&
      state === cookieState &&
      (await this.store.take(`oauth:state:${state}`)) !== null;
    if (!known) {
      throw GatewayErrors.invalidOAuthState();
    }
    if (error !== undefined) {
      if (wantsJson(req)) throw GatewayErrors.loginDenied(error);
      res.redirect(302, this.dashboard({ login_error: error === 'access_denied' ? 'denied' : 'failed' }));
      return;
    }
    if (typeof code !== 'string' || code.length === 0 || code.length > 200) {
      throw new ValidationError('code is missing', [{ field: 'code', message: 'code is required' }]);
    }
    const { profile, access } = await this.oauth.loginWithCode(code);
    const user = await this.users.upsertOnLogin(profile);
    const { token, session } = await this.sessions.open(
      { user_id: user.id, platform_user_id: user.platform_user_id },
      access,
    );
    res.cookie(SESSION_COOKIE, token, this.cookie('/', this.options.sessionTtlSeconds));
    if (wantsJson(req)) {
      const body: LoginView = {
        token,
        token_type: 'Bearer',
        expires_at: session.expires_at,
        user: toUserView(user),
      };
      res.status(200).json(body);
    } else {
      res.redirect(302, this.dashboard());
    }
  }

  /** Ends the session the request carries (if any) and clears the cookie; always 204. */
  @ApiOperation({ summary: 'Log out' })
  @Post('logout')
  @HttpCode(204)
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    // Another site must not be able to log the user out either.
    this.origin.assert(req);
    const token = sessionToken(req);
    if (token) await this.sessions.close(token);
    res.clearCookie(SESSION_COOKIE, this.cookie('/'));
  }

  private cookie(path: string, maxAgeSeconds?: number): CookieOptions {
    return {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.options.secureCookies,
      path,
      ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds * 1_000 }),
    };
  }

  private dashboard(query: Record<string, string> = {}): string {
    const url = new URL(this.options.dashboardUrl);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    return url.toString();
  }
}

function wantsJson(req: Request): boolean {
  return (req.headers.accept ?? '').includes('application/json');
}
