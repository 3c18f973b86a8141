import {
  BaseEnv,
  HTTP_URL,
  IsHttpUrl,
  IsIntegerInRange,
  IsOptionalRedisUrl,
  IsRequiredString,
} from '@lib/config';
import { IsNotEmpty, IsString, IsUrl, Matches } from 'class-validator';
import path from 'node:path';

export class GatewayEnv extends BaseEnv {
  override PORT = 3000;

  /**
   * Sessions, OAuth states and rate-limit counters, shared by every replica. Unset (or empty): they
   * live in Postgres (`identity.key_values`) instead, for standalone mode without Redis.
   */
  @IsOptionalRedisUrl()
  REDIS_URL?: string;

  /** The chat platform's REST API without the version (token exchange, the user's profile). */
  @IsHttpUrl()
  DISCORD_API_URL = 'https://discord.com/api';

  /** Where the user's browser is sent to authorise (`<url>/oauth2/authorize`). */
  @IsHttpUrl()
  DISCORD_OAUTH_URL = 'https://discord.com';

  /** The OAuth2 application (developer portal). */
  @Matches(/^\d{1,20}$/, { message: 'DISCORD_CLIENT_ID must be the application id (digits)' })
  DISCORD_CLIENT_ID!: string;

  /** The OAuth2 application's secret, exchanging login codes (secret). */
  @IsRequiredString()
  DISCORD_CLIENT_SECRET!: string;

  /** This gateway's `/auth/callback` as the browser reaches it; registered with the application. */
  @IsUrl(HTTP_URL, { message: 'OAUTH_REDIRECT_URI must be the public URL of /auth/callback' })
  OAUTH_REDIRECT_URI!: string;

  /** The dashboard: where a browser lands after login, and the one origin CORS admits. */
  @IsHttpUrl()
  DASHBOARD_URL = 'http://localhost:5173';

  /**
   * The dashboard's static build (`npm run dashboard:build`), served at `/` on this origin. The
   * default is where the build lands beside this app, in the repository and in the image; a folder
   * without a build leaves the gateway answering the API alone.
   */
  @IsString()
  @IsNotEmpty({ message: 'DASHBOARD_DIST_DIR must name a folder' })
  DASHBOARD_DIST_DIR: string = path.resolve(__dirname, '../../dashboard/dist');

  @IsHttpUrl()
  RECOVERY_URL!: string;

  @IsHttpUrl()
  BILLING_URL!: string;

  @IsHttpUrl()
  LICENSING_URL!: string;

  /** Where the notifier's public routes are forwarded, e.g. `http://notifier:3004`. */
  @IsHttpUrl()
  NOTIFIER_URL!: string;

  /** Session lifetime from login (no sliding: a stolen token dies on schedule). */
  @IsIntegerInRange(60, 30 * 86_400)
  SESSION_TTL_S: number = 7 * 86_400;

  /** Requests per minute per session and per client address on the public API. */
  @IsIntegerInRange(1)
  RATE_LIMIT_SESSION_PER_MINUTE: number = 300;

  /** Requests per minute per client address, logged in or not. */
  @IsIntegerInRange(1)
  RATE_LIMIT_IP_PER_MINUTE: number = 600;

  /** Proxies in front of the gateway whose X-Forwarded-For is believed (1 behind the ingress). */
  @IsIntegerInRange(0, 10)
  TRUST_PROXY_HOPS: number = 0;

  /** How long a forwarded call may take (confirm waits up to 30 s for the provider). */
  @IsIntegerInRange(1_000, 300_000)
  UPSTREAM_TIMEOUT_MS: number = 60_000;
}
