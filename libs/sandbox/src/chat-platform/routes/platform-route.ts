import type { Caller, RouteAccess } from '../caller';
import type { GuildChange } from '../guild-change';
import type { PlatformStore } from '../platform-store';
import type { RouteDefinition } from '../router';

export interface RouteRequest {
  params: Record<string, string>;
  /** The query string's parameters. */
  query: URLSearchParams;
  /** The parsed JSON body, undefined when there was none; for a `form` route, its fields. */
  body: unknown;
  /** Who the request speaks for; the route's `access` has already let it in. */
  caller: Caller;
  /**
   * The account whose permissions the request uses: the bot token's (the fake's own bot, or a
   * bot a test registered) or the access token's user; the fake's own bot for anyone else.
   */
  actorId: string;
  /** The decoded `X-Audit-Log-Reason` header. */
  auditLogReason: string | null;
}

export interface RouteResponse {
  status: number;
  body?: unknown;
  /** What the request changed in guilds: the server records it in audit logs and on the gateway. */
  changes?: GuildChange[];
}

/** One endpoint: a synchronous handler over the store, so every request applies atomically. */
export interface PlatformRoute extends RouteDefinition {
  /** Default: the bot only. */
  access?: RouteAccess;
  /**
   * Default `json`. `form` hands the handler URLSearchParams: the fields of an
   * `application/x-www-form-urlencoded` body, none for any other body. `multipart` hands it a
   * `MultipartBody`: the parts of a `multipart/form-data` body, none for any other body.
   */
  bodyFormat?: 'json' | 'form' | 'multipart';
  handle(request: RouteRequest, store: PlatformStore): RouteResponse;
}

/** A `multipart/form-data` body: its text fields, and its files by field name. */
export interface MultipartBody {
  fields: Map<string, string>;
  files: Map<string, { bytes: Buffer; filename: string; contentType: string }>;
}

export const ok = (body: unknown, changes?: GuildChange[]): RouteResponse => ({ status: 200, body, changes });
export const created = (body: unknown, changes?: GuildChange[]): RouteResponse => ({
  status: 201,
  body,
  changes,
});
export const noContent = (changes?: GuildChange[]): RouteResponse => ({ status: 204, changes });
