import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

/**
 * A small router on the History API: the dashboard has a handful of pages under fixed paths
 * (routes.ts), so a routing library would add kilobytes to the first page for nothing. Links are
 * real `<a href>` (open in a new tab, copy, middle-click all work); a plain click navigates in
 * place, and the page's heading then takes the focus (see Page in layout.tsx).
 */
const NAVIGATE = 'guildkeeper:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATE, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATE, onChange);
  };
}

const currentLocation = () => window.location.pathname + window.location.search;

/** The current path and query; re-renders on every navigation. */
export function useLocation(): { pathname: string; search: URLSearchParams; href: string } {
  const href = useSyncExternalStore(subscribe, currentLocation);
  const url = new URL(href, window.location.origin);
  return { pathname: url.pathname, search: url.searchParams, href };
}

export function navigate(to: string, { replace = false }: { replace?: boolean } = {}): void {
  if (to === currentLocation()) return;
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATE));
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
    window.scrollTo(0, 0);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
