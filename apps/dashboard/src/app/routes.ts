/**
 * Every page of the dashboard and its path. The gateway serves the app's shell for any of them
 * (and the deployment's ingress routes their first segments to the gateway: test/deploy checks
 * it against this table). A new page (as plans, settings and the audit log were) is one more entry here
 * and one more component in pages.tsx.
 */
export const ROUTES = {
  picker: '/',
  login: '/login',
  guild: '/guilds/:guildId',
  snapshots: '/guilds/:guildId/snapshots',
  snapshot: '/guilds/:guildId/snapshots/:snapshotId',
  restore: '/guilds/:guildId/restore',
  restoreJob: '/guilds/:guildId/restore/:jobId',
  incidents: '/guilds/:guildId/incidents',
  antinuke: '/guilds/:guildId/antinuke',
  auditLog: '/guilds/:guildId/audit-log',
  notifications: '/notifications',
  plans: '/guilds/:guildId/plans',
  checkout: '/guilds/:guildId/checkout',
  subscription: '/guilds/:guildId/subscription',
} as const;

export type RouteName = keyof typeof ROUTES;

/** The `:name` parameters of a route's path. */
export type RouteParams<N extends RouteName> = ParamsOf<(typeof ROUTES)[N]>;
type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;

export interface RouteMatch {
  name: RouteName;
  params: Record<string, string>;
}

const compiled = (Object.entries(ROUTES) as [RouteName, string][]).map(([name, path]) => {
  const names: string[] = [];
  const pattern = path.replace(/:([A-Za-z]+)/g, (_, param: string) => {
    names.push(param);
    return '([^/]+)';
  });
  return { name, regex: new RegExp(`^${pattern}/?$`), names };
});

/** The page a path shows, with its parameters; null for a path that is no page. */
export function matchRoute(pathname: string): RouteMatch | null {
  for (const { name, regex, names } of compiled) {
    const found = regex.exec(pathname);
    if (!found) continue;
    const params: Record<string, string> = {};
    names.forEach((param, index) => (params[param] = decodeURIComponent(found[index + 1])));
    return { name, params };
  }
  return null;
}

/** The path of a page, with its parameters and an optional query. */
export function pathTo<N extends RouteName>(
  name: N,
  params: RouteParams<N>,
  query: Record<string, string | undefined> = {},
): string {
  const values = params as Record<string, string>;
  const path = ROUTES[name].replace(/:([A-Za-z]+)/g, (_, param: string) => encodeURIComponent(values[param]));
  const search = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  return search ? `${path}?${search}` : path;
}
