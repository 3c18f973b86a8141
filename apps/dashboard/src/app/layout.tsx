import { type ReactNode, useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiProblem } from '../api/problem';
import { logout, useMe } from '../api/queries';
import { Link, navigate } from './router';
import { pathTo } from './routes';

/** The frame of every page: a skip link, the product's name, who is logged in, the page. */
export function AppFrame({ children, showUser }: { children: ReactNode; showUser: boolean }) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link href={pathTo('picker', {})} className="brand">
          <img src="/favicon.svg" alt="" width="24" height="24" />
          guildkeeper
        </Link>
        {showUser && <UserMenu />}
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function UserMenu() {
  const me = useMe();
  const client = useQueryClient();
  if (!me.data) return null;
  const signOut = async () => {
    await logout();
    client.clear();
    navigate(pathTo('login', {}));
  };
  return (
    <div className="user-menu">
      <span>
        Logged in as <strong>{me.data.global_name ?? me.data.username}</strong>
      </span>
      <Link href={pathTo('notifications', {})}>Notifications</Link>
      <button type="button" className="button-quiet" onClick={() => void signOut()}>
        Log out
      </button>
    </div>
  );
}

/**
 * One page: its heading, which takes the focus when the page opens (so a screen reader announces
 * where a navigation led, and Tab continues from there), and the window's title.
 */
export function Page({
  title,
  children,
  actions,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · guildkeeper`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <div className="page">
      <div className="page-heading">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions}
      </div>
      {children}
    </div>
  );
}

/** An error of the API in plain words: the problem's title and detail, never a raw body. */
export function ProblemMessage({ error, children }: { error: unknown; children?: ReactNode }) {
  const problem =
    error instanceof ApiProblem
      ? error
      : new ApiProblem(0, 'Something went wrong', 'The page could not show this. Reload it and try again.');
  return (
    <div className="problem" role="alert">
      <p className="problem-title">{problem.title}</p>
      <p>{problem.detail}</p>
      {problem.fieldErrors.length > 0 && (
        <ul>
          {problem.fieldErrors.map((field) => (
            <li key={field.field}>{field.message}</li>
          ))}
        </ul>
      )}
      {problem.requestId && <p className="muted small">Request id {problem.requestId}</p>}
      {children}
    </div>
  );
}

/**
 * A query's state while it has nothing to show: loading, or the problem it failed with (the page
 * shows the data itself once it is there).
 */
export function QueryStatus({
  query,
  what,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown };
  what: string;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <ProblemMessage error={query.error} />;
  return null;
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}
