import createClient, { type Middleware } from 'openapi-fetch';
import { ApiProblem, networkProblem, problemFrom } from './problem';
import type { components, paths } from './schema';

/** The API's own types, generated from its OpenAPI document (`npm run dashboard:client`). */
export type Schemas = components['schemas'];

type SessionLostListener = () => void;
const sessionLostListeners = new Set<SessionLostListener>();

/** Called whenever the API says the session is gone (401): the app sends the user to log in. */
export function onSessionLost(listener: SessionLostListener): () => void {
  sessionLostListeners.add(listener);
  return () => sessionLostListeners.delete(listener);
}

const noticeLostSession: Middleware = {
  onResponse({ response }) {
    if (response.status === 401) for (const listener of sessionLostListeners) listener();
    return undefined;
  },
};

/**
 * The gateway on this page's own origin: the `sid` cookie goes along and nothing else is needed
 * (no token in scripts, no CORS). The browser sends `Sec-Fetch-Site: same-origin` on changes,
 * which the gateway requires of cookie-authenticated ones.
 */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(noticeLostSession);

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The answer's body, or the problem it carries thrown as an ApiProblem; a request that got no
 * answer at all throws the network problem.
 */
export async function unwrap<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (error) {
    if (error instanceof ApiProblem) throw error;
    throw networkProblem();
  }
  if (!result.response.ok) throw problemFrom(result.response, result.error);
  return result.data as T;
}
