import type { FakeChatPlatform } from '@lib/sandbox';
import { type AppProcess, freePort, startApp } from './app-process';
import { BillingStack } from './billing-stack';
import { openDataSource } from './database';
import { skipNotifierBacklog } from './notifier-backlog';

export interface GatewayResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** What a client holds after logging in: the bearer token and the cookie a browser would keep. */
export interface LoggedIn {
  token: string;
  cookie: string;
  user: { id: string; platform_user_id: string };
}

export const DASHBOARD_URL = 'http://dashboard.test:5173';

/**
 * The whole distributed product behind the gateway: recovery (with its restore worker), licensing,
 * billing and the notifier as processes, the fake chat platform (bot API and OAuth2) and the fake
 * payment provider. Tests talk to `gateway` only, as the dashboard does.
 */
export class GatewayStack extends BillingStack {
  notifier!: AppProcess;
  gateway!: AppProcess;
  readonly clientId = process.env.DISCORD_CLIENT_ID!;
  readonly clientSecret = process.env.DISCORD_CLIENT_SECRET!;
  private gatewayEnv: Record<string, string> = {};

  constructor() {
    super({ worker: true });
  }

  override async start(): Promise<void> {
    await super.start();
    const dataSource = await openDataSource();
    try {
      await skipNotifierBacklog(dataSource);
    } finally {
      await dataSource.destroy();
    }
    this.notifier = await startApp('notifier', {
      DISCORD_API_URL: `${this.platform.url}/api`,
      RECOVERY_URL: this.recovery.url,
      LICENSING_URL: this.licensing.url,
    });
    this.gatewayEnv = {
      DASHBOARD_URL,
      RECOVERY_URL: this.recovery.url,
      BILLING_URL: this.billing.url,
      LICENSING_URL: this.licensing.url,
      NOTIFIER_URL: this.notifier.url,
      // Every test request comes from 127.0.0.1; the limits get their own gateway in their test.
      RATE_LIMIT_IP_PER_MINUTE: '100000',
      RATE_LIMIT_SESSION_PER_MINUTE: '100000',
    };
    this.gateway = await startGatewayOn(this.platform, this.gatewayEnv);
    // Replicas and other gateways of this stack take the login back to this one's callback.
    this.gatewayEnv.OAUTH_REDIRECT_URI = `${this.gateway.url}/auth/callback`;
    this.gatewayEnv.DISCORD_API_URL = `${this.platform.url}/api`;
    this.gatewayEnv.DISCORD_OAUTH_URL = this.platform.url;
  }

  /** Another gateway on the same services (a replica, or one with other limits), `env` on top. */
  startGateway(env: Record<string, string> = {}): Promise<AppProcess> {
    return startApp('gateway', { ...this.gatewayEnv, ...env });
  }

  override async stop(): Promise<void> {
    await Promise.all([this.gateway?.stop(), this.notifier?.stop()]);
    await super.stop();
  }

  /** Logs `platformUserId` in through this gateway as a browser does (see `loginThroughGateway`). */
  login(platformUserId: string, gateway: AppProcess = this.gateway): Promise<LoggedIn> {
    return loginThroughGateway(gateway.url, this.platform, platformUserId);
  }

  /** A request to the gateway, with a bearer token, a cookie, or neither. */
  request(
    method: string,
    path: string,
    options: GatewayRequestOptions = {},
    gateway: AppProcess = this.gateway,
  ): Promise<GatewayResponse> {
    return requestGateway(gateway.url, method, path, options);
  }
}

/**
 * A gateway of its own on `platform`, its OAuth application registered there with this gateway's
 * callback (on a port chosen first), `env` on top.
 */
export async function startGatewayOn(
  platform: FakeChatPlatform,
  env: Record<string, string | undefined> = {},
): Promise<AppProcess> {
  const port = await freePort();
  const redirectUri = `http://127.0.0.1:${port}/auth/callback`;
  platform.registerOAuthApp({
    clientId: process.env.DISCORD_CLIENT_ID!,
    clientSecret: process.env.DISCORD_CLIENT_SECRET!,
    redirectUris: [redirectUri],
  });
  return startApp(
    'gateway',
    {
      DISCORD_API_URL: `${platform.url}/api`,
      DISCORD_OAUTH_URL: platform.url,
      OAUTH_REDIRECT_URI: redirectUri,
      ...env,
    },
    { port },
  );
}

export interface GatewayRequestOptions {
  token?: string;
  cookie?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The login a browser makes: /auth/login, the platform's authorize page (as `platformUserId`,
 * logged in there; without a platform, as whoever is signed in on it), back to /auth/callback with
 * the code and the state cookie.
 */
export async function loginThroughGateway(
  url: string,
  platform?: FakeChatPlatform,
  platformUserId?: string,
): Promise<LoggedIn> {
  const start = await fetch(`${url}/auth/login`, { redirect: 'manual' });
  if (start.status !== 302) throw new Error(`/auth/login answered ${start.status}`);
  const stateCookie = cookiePair(start.headers, 'oauth_state');
  if (platform && platformUserId) platform.loginAs(platformUserId);
  const authorized = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  const callback = authorized.headers.get('location');
  if (authorized.status !== 302 || !callback) throw new Error(`authorize answered ${authorized.status}`);
  const done = await fetch(callback, {
    redirect: 'manual',
    headers: { cookie: stateCookie, accept: 'application/json' },
  });
  const body = (await done.json()) as { token: string; user: LoggedIn['user'] };
  if (done.status !== 200) throw new Error(`callback answered ${done.status}: ${JSON.stringify(body)}`);
  return { token: body.token, cookie: cookiePair(done.headers, 'sid'), user: body.user };
}

/** A request to a gateway at `url`, with a bearer token, a cookie, or neither. */
export async function requestGateway(
  url: string,
  method: string,
  path: string,
  options: GatewayRequestOptions = {},
): Promise<GatewayResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) {
    headers.cookie = options.cookie;
    // What a browser on the dashboard sends with it (the gateway refuses cookie changes without it).
    headers['sec-fetch-site'] ??= 'same-origin';
  }
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    redirect: 'manual',
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { text };
  }
  return { status: response.status, body, headers: response.headers };
}

/** `name=value` of a Set-Cookie the response carries, ready for a Cookie header. */
export function cookiePair(headers: Headers, name: string): string {
  const cookie = headers.getSetCookie().find((candidate) => candidate.startsWith(`${name}=`));
  if (!cookie) throw new Error(`no ${name} cookie was set`);
  return cookie.split(';')[0];
}
