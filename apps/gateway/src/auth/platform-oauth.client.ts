import { Logger } from '@nestjs/common';
import { DomainError } from '@lib/problem-details';
import axios, { type AxiosInstance, isAxiosError } from 'axios';

export interface PlatformProfile {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
}

export interface PlatformOAuthOptions {
  apiBaseUrl: string;
  oauthBaseUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** Only who the user is: the bot's own access answers every guild question. */
const SCOPE = 'identify';

/**
 * The chat platform's OAuth 2.0 authorization-code flow (Discord's): the authorize URL the browser
 * goes to, the code exchanged for the user's access token, and the user's profile read with it.
 * The access token is used once and not kept: the service acts on guilds as its bot.
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
  async profileForCode(code: string): Promise<PlatformProfile> {
    let accessToken: string;
    try {
      const response = await this.http.post<{ access_token: string }>(
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
      accessToken = response.data.access_token;
    } catch (error) {
      if (isAxiosError(error) && error.response?.status === 400) {
        throw new DomainError(
          'ErrLoginFailed',
          400,
          'Login failed',
          'The platform did not accept this login (expired or already used). Log in again.',
        );
      }
      throw this.unavailable(error, 'token exchange');
    }
    try {
      const response = await this.http.get<PlatformProfile>('/users/@me', {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      const { id, username, global_name, avatar } = response.data;
      return { id, username, global_name: global_name ?? null, avatar: avatar ?? null };
    } catch (error) {
      throw this.unavailable(error, 'profile read');
    }
  }

  private unavailable(error: unknown, step: string): DomainError {
    // Never log the error object itself: its config carries the client secret and the code.
    this.logger.warn(
      {
        step,
        status: isAxiosError(error) ? error.response?.status : undefined,
        code: (error as { code?: string }).code,
      },
      'chat platform login call failed',
    );
    return new DomainError(
      'ErrPlatformUnavailable',
      502,
      'Chat platform unavailable',
      'The chat platform did not complete the login. Try again in a moment.',
    );
  }
}
