import type { ReactNode } from 'react';
import { Page, QueryStatus } from '../app/layout';
import { Fact, QueryFact } from '../components/facts';
import { Link, useLocation } from '../app/router';
import { pathTo, type RouteName } from '../app/routes';
import {
  isRunning,
  useAntiNuke,
  useGuild,
  useIncidents,
  useLatestRestore,
  useLicense,
  useSnapshots,
} from '../api/queries';
import { dateTime, nextMidnightUtc, relativeTime } from '../format/time';

const SECTIONS: { route: RouteName; label: string }[] = [
  { route: 'guild', label: 'Overview' },
  { route: 'snapshots', label: 'Snapshots' },
  { route: 'restore', label: 'Restore' },
  { route: 'incidents', label: 'Incidents' },
  { route: 'antinuke', label: 'AntiNuke' },
  { route: 'auditLog', label: 'Audit log' },
  { route: 'plans', label: 'Plans' },
  { route: 'subscription', label: 'Subscription' },
];

/**
 * A page of one guild: the guild's name, its sections, the page. A user who may not manage the
 * guild sees the API's refusal and nothing else of it.
 */
export function GuildPage({
  guildId,
  title,
  children,
  actions,
}: {
  guildId: string;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const guild = useGuild(guildId);
  const { pathname } = useLocation();
  const name = guild.data?.name;
  return (
    <Page title={name ? `${title} · ${name}` : title} actions={guild.data ? actions : undefined}>
      <nav className="guild-nav" aria-label="Guild">
        <ul>
          {SECTIONS.map(({ route, label }) => {
            const href = pathTo(route as 'guild', { guildId });
            const current = route === 'guild' ? pathname === href : pathname.startsWith(href);
            return (
              <li key={route}>
                <Link href={href} aria-current={current ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <QueryStatus query={guild} what="the guild" />
      {guild.data && !guild.data.active && (
        <div className="notice" role="status">
          The bot is no longer in this guild: snapshots can be read, but nothing can be restored until it is
          added back.
        </div>
      )}
      {guild.data && children}
    </Page>
  );
}

/** Where the guild stands: plan, snapshots, AntiNuke, incidents, a restore that runs now. */
export function GuildOverviewPage({ guildId }: { guildId: string }) {
  const license = useLicense(guildId);
  const snapshots = useSnapshots(guildId, 1);
  const antinuke = useAntiNuke(guildId);
  const incidents = useIncidents(guildId);
  const restore = useLatestRestore(guildId);
  const scheduled = license.data?.features.includes('RECOVERY_SNAPSHOT_SCHEDULED');
  const running = restore.data && isRunning(restore.data.status) ? restore.data : null;
  const progress = running?.progress;

  return (
    <GuildPage guildId={guildId} title="Overview">
      {running && (
        <div className="notice notice-active" role="status">
          A restore is running
          {progress ? `: ${progress.done} of ${progress.total} changes done` : ''}.{' '}
          <Link href={pathTo('restoreJob', { guildId, jobId: running.id })}>Follow it</Link>
        </div>
      )}
      <dl className="facts">
        <QueryFact label="Plan" query={license}>
          {({ plan, expires_at }) => (
            <>
              {plan.name}
              {expires_at && <span className="muted"> · paid until {dateTime(expires_at)}</span>}
            </>
          )}
        </QueryFact>
        <QueryFact label="Last snapshot" query={snapshots}>
          {({ items: [last] }) =>
            last ? (
              <>
                <Link href={pathTo('snapshot', { guildId, snapshotId: last.id })}>
                  {last.description || `${last.trigger} snapshot`}
                </Link>{' '}
                <span className="muted">
                  <time dateTime={last.created_at} title={dateTime(last.created_at)}>
                    {relativeTime(last.created_at)}
                  </time>
                </span>
              </>
            ) : (
              'None yet'
            )
          }
        </QueryFact>
        <Fact label="Next scheduled snapshot">
          {license.data ? (
            scheduled ? (
              <>
                <time dateTime={nextMidnightUtc()}>{dateTime(nextMidnightUtc())}</time>{' '}
                <span className="muted">(daily around 00:00 UTC)</span>
              </>
            ) : (
              `Not on the ${license.data.plan.name} plan`
            )
          ) : (
            '…'
          )}
        </Fact>
        <QueryFact label="AntiNuke" query={antinuke}>
          {(setting) =>
            setting.detection_available ? (
              <>
                {setting.workflow_running === false ? 'Not running' : 'Watching'} · acts at{' '}
                {setting.threshold} deletions in {setting.window_seconds} s · automatic action{' '}
                {setting.auto_action_enabled ? 'on' : 'off'}
              </>
            ) : (
              `Not on the ${setting.plan_code} plan`
            )
          }
        </QueryFact>
        <QueryFact label="Incidents" query={incidents}>
          {({ items, items: [latest] }) =>
            latest ? (
              <>
                <Link href={pathTo('incidents', { guildId })}>{items.length} recorded</Link>
                <span className="muted"> · latest {relativeTime(latest.opened_at)}</span>
              </>
            ) : (
              'None'
            )
          }
        </QueryFact>
        <Fact label="Last restore">
          {restore.data ? (
            <Link href={pathTo('restoreJob', { guildId, jobId: restore.data.id })}>
              {restore.data.status} · {relativeTime(restore.data.created_at)}
            </Link>
          ) : restore.isPending ? (
            '…'
          ) : (
            'None'
          )}
        </Fact>
      </dl>
      <p className="actions">
        <Link className="button button-primary" href={pathTo('snapshots', { guildId })}>
          Take a snapshot
        </Link>
        <Link className="button" href={pathTo('restore', { guildId })}>
          Restore
        </Link>
      </p>
    </GuildPage>
  );
}
