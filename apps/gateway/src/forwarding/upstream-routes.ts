/** The services behind the gateway that own public routes. */
export type Upstream = 'recovery' | 'billing' | 'licensing' | 'notifier';

/** A path parameter: ids and codes only, so no encoded slash or dot segment travels upstream. */
const ID = '[A-Za-z0-9_-]+';

/**
 * Which service owns each public route (docs/behaviour.md §4, docs/decisions/public-routes.md).
 * Checked in order; anything not here is not public and is answered 404 by the gateway itself, so `/internal/...` and
 * `/admin/...` can never be reached from outside, whatever a service mounts.
 */
const ROUTES: { methods: readonly string[]; pattern: RegExp; upstream: Upstream }[] = [
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/guilds/${ID}/subscriptions$`), upstream: 'billing' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/guilds/${ID}/license$`), upstream: 'licensing' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/guilds/${ID}/audit-log$`), upstream: 'notifier' },
  { methods: ['GET', 'POST'], pattern: new RegExp(`^/api/v1/guilds/${ID}/snapshots$`), upstream: 'recovery' },
  { methods: ['GET', 'PUT'], pattern: new RegExp(`^/api/v1/guilds/${ID}/antinuke$`), upstream: 'recovery' },
  {
    methods: ['GET', 'POST', 'DELETE'],
    pattern: new RegExp(`^/api/v1/guilds/${ID}/antinuke/lockdown$`),
    upstream: 'recovery',
  },
  {
    methods: ['POST'],
    pattern: new RegExp(`^/api/v1/guilds/${ID}/antinuke/incidents/${ID}/release$`),
    upstream: 'recovery',
  },
  {
    methods: ['POST'],
    pattern: new RegExp(`^/api/v1/guilds/${ID}/antinuke/pending/${ID}/(refuse|approve)$`),
    upstream: 'recovery',
  },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/guilds/${ID}/deleted-snapshots$`), upstream: 'recovery' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/guilds/${ID}/incidents$`), upstream: 'recovery' },
  {
    methods: ['POST'],
    pattern: new RegExp(`^/api/v1/guilds/${ID}/antinuke/incidents/${ID}/undo$`),
    upstream: 'recovery',
  },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/guilds/${ID}/member-names$`), upstream: 'recovery' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/guilds/${ID}$`), upstream: 'recovery' },
  { methods: ['POST'], pattern: /^\/api\/v1\/guilds$/, upstream: 'recovery' },
  { methods: ['GET', 'DELETE'], pattern: new RegExp(`^/api/v1/snapshots/${ID}$`), upstream: 'recovery' },
  { methods: ['POST'], pattern: new RegExp(`^/api/v1/snapshots/${ID}/undelete$`), upstream: 'recovery' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/snapshots/${ID}/export$`), upstream: 'recovery' },
  { methods: ['POST'], pattern: /^\/api\/v1\/restore\/(preview|start)$/, upstream: 'recovery' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/restore/${ID}$`), upstream: 'recovery' },
  { methods: ['POST'], pattern: new RegExp(`^/api/v1/restore/${ID}/cancel$`), upstream: 'recovery' },
  { methods: ['GET'], pattern: /^\/api\/v1\/plans$/, upstream: 'licensing' },
  { methods: ['GET'], pattern: /^\/api\/v1\/billing\/prepare$/, upstream: 'billing' },
  { methods: ['POST'], pattern: /^\/api\/v1\/billing\/confirm$/, upstream: 'billing' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/subscriptions/${ID}$`), upstream: 'billing' },
  { methods: ['GET'], pattern: new RegExp(`^/api/v1/subscriptions/${ID}/payments$`), upstream: 'billing' },
  {
    methods: ['DELETE'],
    pattern: new RegExp(`^/api/v1/subscriptions/${ID}/pending-downgrade$`),
    upstream: 'billing',
  },
  {
    methods: ['POST'],
    pattern: new RegExp(`^(/api/v1)?/subscriptions/${ID}/(change-plan|cancel|uncancel)$`),
    upstream: 'billing',
  },
  { methods: ['GET', 'PUT'], pattern: /^\/api\/v1\/me\/notification-preferences$/, upstream: 'notifier' },
  { methods: ['POST'], pattern: /^\/api\/v1\/me\/notification-preferences\/test-dm$/, upstream: 'notifier' },
];

export type RouteMatch = { upstream: Upstream } | { notAllowed: readonly string[] } | null;

/** The owner of `method path` (path without the query), the methods the path takes, or null. */
export function matchUpstream(method: string, path: string): RouteMatch {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    if (!route.pattern.test(path)) continue;
    if (route.methods.includes(method)) return { upstream: route.upstream };
    allowed.push(...route.methods);
  }
  return allowed.length ? { notAllowed: allowed } : null;
}
