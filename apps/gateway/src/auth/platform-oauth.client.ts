import { Logger } from '@nestjs/common';
import type { DomainError } from '@lib/problem-details';
import { GatewayErrors } from '../gateway.errors';
import axios, { type AxiosInstance, isAxiosError } from 'axios';
import type { PlatformAccess } from './platform-access';

export interface PlatformProfile {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
}

/** A guild as the platform lists it for the user (`GET /users/@me/guilds`). */
export interface PlatformUserGuild {
  id: string;
  name: string;
  icon: string | null;
  /** Whether the user owns it. */
  owner: boolean;
  /** The user's guild-level permission bits, a decimal string. */
  permissions: string;
}

/** What a completed login yields: who the user is, and their access token for the guild list. */
export interface PlatformLogin {
  profile: PlatformProfile;
  access: PlatformAccess;
}

export interface PlatformOAuthOptions {
  apiBaseUrl: string;
  oauthBaseUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/**
 * Who the user is, and which guilds they are in (for the dashboard's guild picker). Everything the
 * service does in a guild it does as its bot.
 */
const SCOPE = 'identify guilds';

/** The platform lists at most this many guilds a page; a user is in at most 200 (500 with Nitro). */
const GUILDS_PAGE = 200;
const MAX_GUILD_PAGES = 3;

/**
 * The chat platform's OAuth 2.0 authorization-code flow (Discord's): the authorize URL the browser
 * goes to, the code exchanged for the user's access token, the user's profile read with it, and
 * later the user's guilds. The access token is kept only sealed in the session (`Sessions`).
 */
export class PlatformOAuthClient {
  private readonly logger = new Logger(PlatformOAuthClient.name);
  private readonly http: AxiosInstance;

  constructor(private readonly options: PlatformOAuthOptions) {
    this.http = axios.create({ baseURL: `${options.apiBaseUrl}/v10`, timeout: 10_000, maxRedirects: 0 });
  }

  authorizeUrl(state: string): string {
    const url = new URL('/oauth2/authorize', this.options.oauthBaseUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.options.clientId,
      scope: SCOPE,
      redirect_uri: this.options.redirectUri,
      state,
      prompt: 'none',
    }).toString();
    return url.toString();
  }

  /** Exchanges the code and reads the profile; a refused code is the user's problem (400). */
  async loginWithCode(code: string): Promise<PlatformLogin> {
    let access: PlatformAccess;
    try {
      const response = await this.http.post<{ access_token: string; expires_in: number }>(
        '/oauth2/token',
        new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: this.options.redirectUri,
        }),
        {
          auth: { username: this.options.clientId, password: this.options.clientSecret },
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
      );
      access = {
        token: response.data.access_token,
        expires_at: new Date(Date.now() + response.data.expires_in * 1_000).toISOString(),
      };
    } catch (error) {
      if (isAxiosError(error) && error.response?.status === 400) {
        throw GatewayErrors.loginFailed();
      }
      throw this.unavailable(error, 'token exchange');
    }
    try {
      const response = await this.http.get<PlatformProfile>('/users/@me', {
        headers: { authorization: `Bearer ${access.token}` },
      });
      const { id, username, global_name, avatar } = response.data;
      return { profile: { id, username, global_name: global_name ?? null, avatar: avatar ?? null }, access };
    } catch (error) {
      throw this.unavailable(error, 'profile read');
    }
  }

  /**
   * The guilds the user is in, with their permissions there, read with their access token. A token
   * the platform no longer honours (revoked, expired, or granted without `guilds`) is 401: the user
   * logs in again.
   */
  async guildsOf(accessToken: string): Promise<PlatformUserGuild[]> {
    const guilds: PlatformUserGuild[] = [];
    for (let page = 0; page < MAX_GUILD_PAGES; page++) {
      let listed: PlatformUserGuild[];
      try {
        const after = guilds.at(-1)?.id;
        const response = await this.http.get<PlatformUserGuild[]>('/users/@me/guilds', {
          headers: { authorization: `Bearer ${accessToken}` },
          params: { limit: GUILDS_PAGE, ...(after ? { after } : {}) },
        });
        listed = response.data;
      } catch (error) {
        if (isAxiosError(error) && (error.response?.status === 401 || error.response?.status === 403)) {
          throw platformAccessRefused();
        }
        throw this.unavailable(error, 'guild list', 'The chat platform did not list your guilds.');
      }
      guilds.push(
        ...listed.map(({ id, name, icon, owner, permissions }) => ({
          id,
          name,
          icon: icon ?? null,
          owner: owner === true,
          permissions: String(permissions),
        })),
      );
      if (listed.length < GUILDS_PAGE) break;
    }
    return guilds;
  }

  private unavailable(
    error: unknown,
    step: string,
    detail = 'The chat platform did not complete the login.',
  ): DomainError {
    // Never log the error object itself: its config carries the client secret and the code.
    this.logger.warn(
      {
        step,
        status: isAxiosError(error) ? error.response?.status : undefined,
        code: (error as { code?: string }).code,
      },
      'chat platform login call failed',
    );
    return GatewayErrors.platformUnavailable(`${detail} Try again in a moment.`);
  }
}

/** The session holds no platform access the platform still honours: logging in again renews it. */
export function platformAccessRefused(): DomainError {
  return GatewayErrors.platformAccessExpired();
}
