import { bucketHash } from './rate-limiter';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDefinition {
  method: HttpMethod;
  /** After `/api/v10`, with `:name` parameters, e.g. `/guilds/:guild_id/roles/:role_id`. */
  path: string;
}

export interface RouteMatch<TRoute extends RouteDefinition> {
  route: TRoute;
  params: Record<string, string>;
  /** The rate-limit bucket: method + template + major parameter, as the platform keys them. */
  bucket: { key: string; hash: string };
}

/** Parameters that split a route into one bucket per resource, as on the platform. */
const MAJOR_PARAMETERS = ['guild_id', 'channel_id', 'webhook_id'];

interface CompiledRoute<TRoute> {
  route: TRoute;
  pattern: RegExp;
  names: string[];
  majorParameter: string | undefined;
  hash: string;
}

function compile<TRoute extends RouteDefinition>(route: TRoute): CompiledRoute<TRoute> {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return {
    route,
    pattern: new RegExp(`^${source}$`),
    names,
    majorParameter: names.find((name) => MAJOR_PARAMETERS.includes(name)),
    hash: bucketHash(route.method, route.path),
  };
}

/** A route table; a path matched by a route of another method is 405 rather than 404. */
export class Router<TRoute extends RouteDefinition> {
  private readonly routes: CompiledRoute<TRoute>[];

  constructor(routes: TRoute[]) {
    this.routes = routes.map(compile);
  }

  /** `path` is already percent-decoded (see `decodePath`). */
  match(method: string, path: string): RouteMatch<TRoute> | 'method-not-allowed' | undefined {
    let pathKnown = false;
    for (const compiled of this.routes) {
      const found = compiled.pattern.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (compiled.route.method !== method) continue;
      const params: Record<string, string> = {};
      compiled.names.forEach((name, index) => (params[name] = found[index + 1]));
      const major = compiled.majorParameter ? params[compiled.majorParameter] : 'global';
      return {
        route: compiled.route,
        params,
        bucket: { key: `${method} ${compiled.route.path} ${major}`, hash: compiled.hash },
      };
    }
    return pathKnown ? 'method-not-allowed' : undefined;
  }
}

export { decodePath } from '../request-reading';
