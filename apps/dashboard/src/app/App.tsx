import { lazy, Suspense, useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { onSessionLost } from '../api/client';
import { GuildOverviewPage } from '../pages/guild';
import { LoginPage } from '../pages/login';
import { GuildPickerPage } from '../pages/picker';
import { AppFrame, Loading, Page } from './layout';
import { Link, navigate, useLocation } from './router';
import { matchRoute, pathTo } from './routes';
import { rememberReturnPath, takeReturnPath } from './session';
import { scopesFromQuery } from '../format/restore-scopes';

// Loaded when first opened: the first page (login, picker) carries only what it needs.
const SnapshotsPage = lazy(() => import('../pages/snapshots').then((m) => ({ default: m.SnapshotsPage })));
const SnapshotPage = lazy(() => import('../pages/snapshots').then((m) => ({ default: m.SnapshotPage })));
const RestorePage = lazy(() => import('../pages/restore').then((m) => ({ default: m.RestorePage })));
const RestoreJobPage = lazy(() =>
  import('../pages/restore-job').then((m) => ({ default: m.RestoreJobPage })),
);
const IncidentsPage = lazy(() => import('../pages/incidents').then((m) => ({ default: m.IncidentsPage })));
const AntiNukePage = lazy(() => import('../pages/antinuke').then((m) => ({ default: m.AntiNukePage })));
const AuditLogPage = lazy(() => import('../pages/audit-log').then((m) => ({ default: m.AuditLogPage })));
const NotificationsPage = lazy(() =>
  import('../pages/notifications').then((m) => ({ default: m.NotificationsPage })),
);
const PlansPage = lazy(() => import('../pages/plans').then((m) => ({ default: m.PlansPage })));
const CheckoutPage = lazy(() => import('../pages/checkout').then((m) => ({ default: m.CheckoutPage })));
const SubscriptionPage = lazy(() =>
  import('../pages/subscription').then((m) => ({ default: m.SubscriptionPage })),
);

export function App() {
  const location = useLocation();
  const client = useQueryClient();

  // A lost session (401 anywhere): to the login, and back here afterwards.
  useEffect(
    () =>
      onSessionLost(() => {
        const here = window.location.pathname + window.location.search;
        if (window.location.pathname === pathTo('login', {})) return;
        rememberReturnPath(here);
        client.clear();
        navigate(pathTo('login', {}), { replace: true });
      }),
    [client],
  );

  // Back from the platform's login (the gateway lands on `/`): where the user was before.
  useEffect(() => {
    if (location.pathname !== pathTo('picker', {})) return;
    const next = takeReturnPath();
    if (next && next !== pathTo('picker', {})) navigate(next, { replace: true });
  }, [location.pathname]);

  const match = matchRoute(location.pathname);
  const page = (() => {
    if (!match) return <NotFound />;
    const { guildId = '', snapshotId = '', jobId = '' } = match.params;
    switch (match.name) {
      case 'login':
        return <LoginPage error={location.search.get('login_error')} />;
      case 'picker':
        return <GuildPickerPage />;
      case 'guild':
        return <GuildOverviewPage guildId={guildId} />;
      case 'snapshots':
        return <SnapshotsPage guildId={guildId} />;
      case 'snapshot':
        return <SnapshotPage guildId={guildId} snapshotId={snapshotId} />;
      case 'restore':
        return (
          <RestorePage
            key={location.href}
            guildId={guildId}
            presetSnapshotId={location.search.get('snapshot')}
            presetScopes={scopesFromQuery(location.search.get('scope'))}
          />
        );
      case 'restoreJob':
        return <RestoreJobPage guildId={guildId} jobId={jobId} />;
      case 'incidents':
        return <IncidentsPage guildId={guildId} />;
      case 'antinuke':
        return <AntiNukePage guildId={guildId} />;
      case 'auditLog':
        return <AuditLogPage guildId={guildId} />;
      case 'notifications':
        return <NotificationsPage />;
      case 'plans':
        return <PlansPage guildId={guildId} />;
      case 'checkout':
        return <CheckoutPage key={location.href} guildId={guildId} />;
      case 'subscription':
        return <SubscriptionPage guildId={guildId} />;
    }
  })();

  return (
    <AppFrame showUser={match?.name !== 'login'}>
      <Suspense fallback={<Loading what="the page" />}>{page}</Suspense>
    </AppFrame>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address.</p>
      <p>
        <Link href={pathTo('picker', {})}>Go to your guilds</Link>
      </p>
    </Page>
  );
}
