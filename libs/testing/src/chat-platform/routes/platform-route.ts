import type { PlatformStore } from '../platform-store';
import type { RouteDefinition } from '../router';

export interface RouteRequest {
  params: Record<string, string>;
  /** The parsed JSON body; undefined when there was none. */
  body: unknown;
}

export interface RouteResponse {
  status: number;
  body?: unknown;
}

/** One endpoint: a synchronous handler over the store, so every request applies atomically. */
export interface PlatformRoute extends RouteDefinition {
  handle(request: RouteRequest, store: PlatformStore): RouteResponse;
}

export const ok = (body: unknown): RouteResponse => ({ status: 200, body });
export const created = (body: unknown): RouteResponse => ({ status: 201, body });
export const noContent = (): RouteResponse => ({ status: 204 });
