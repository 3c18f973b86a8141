import type { Caller, RouteAccess } from '../caller';
import type { PlatformStore } from '../platform-store';
import type { RouteDefinition } from '../router';

export interface RouteRequest {
  params: Record<string, string>;
  /** The parsed JSON body, undefined when there was none; for a `form` route, its fields. */
  body: unknown;
  /** Who the request speaks for; the route's `access` has already let it in. */
  caller: Caller;
}

export interface RouteResponse {
  status: number;
  body?: unknown;
}

/** One endpoint: a synchronous handler over the store, so every request applies atomically. */
export interface PlatformRoute extends RouteDefinition {
  /** Default: the bot only. */
  access?: RouteAccess;
  /**
   * Default `json`. `form` hands the handler URLSearchParams: the fields of an
   * `application/x-www-form-urlencoded` body, none for any other body.
   */
  bodyFormat?: 'json' | 'form';
  handle(request: RouteRequest, store: PlatformStore): RouteResponse;
}

export const ok = (body: unknown): RouteResponse => ({ status: 200, body });
export const created = (body: unknown): RouteResponse => ({ status: 201, body });
export const noContent = (): RouteResponse => ({ status: 204 });
