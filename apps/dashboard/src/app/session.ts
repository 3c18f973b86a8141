import { pathTo } from './routes';

/** Where the user was when the session was found gone; the login comes back there. */
const NEXT_KEY = 'guildkeeper:after-login';

/** Remembers `path` across the login's round trip through the platform (this tab only). */
export function rememberReturnPath(path: string): void {
  if (path.startsWith('/') && !path.startsWith('//') && !path.startsWith(pathTo('login', {}))) {
    sessionStorage.setItem(NEXT_KEY, path);
  }
}

/** The remembered path, once: the login is done. */
export function takeReturnPath(): string | null {
  const path = sessionStorage.getItem(NEXT_KEY);
  sessionStorage.removeItem(NEXT_KEY);
  return path;
}
