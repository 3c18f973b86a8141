import type { ReactNode } from 'react';
import { Loading, Page, ProblemMessage } from '../app/layout';
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
      {guild.isPending && <Loading what="the guild" />}
      {guild.isError && <ProblemMessage error={guild.error} />}
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

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Where the guild stands: plan, snapshots, AntiNuke, incidents, a restore that runs now. */
export function GuildOverviewPage({ guildId }: { guildId: string }) {
  const license = useLicense(guildId);
  const snapshots = useSnapshots(guildId, 1);
  const antinuke = useAntiNuke(guildId);
  const incidents = useIncidents(guildId);
  const restore = useLatestRestore(guildId);
  const last = snapshots.data?.items[0];
  const scheduled = license.data?.features.includes('RECOVERY_SNAPSHOT_SCHEDULED');
  const running = restore.data && isRunning(restore.data.status) ? restore.data : null;
  const progress = running?.progress;
  const latestIncident = incidents.data?.items[0];

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
        <Fact label="Plan">
          {license.isError ? (
            <ProblemMessage error={license.error} />
          ) : license.data ? (
            <>
              {license.data.plan.name}
              {license.data.expires_at && (
                <span className="muted"> · paid until {dateTime(license.data.expires_at)}</span>
              )}
            </>
          ) : (
            '…'
          )}
        </Fact>
        <Fact label="Last snapshot">
          {snapshots.isError ? (
            <ProblemMessage error={snapshots.error} />
          ) : last ? (
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
          ) : snapshots.data ? (
            'None yet'
          ) : (
            '…'
          )}
        </Fact>
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
        <Fact label="AntiNuke">
          {antinuke.isError ? (
            <ProblemMessage error={antinuke.error} />
          ) : antinuke.data ? (
            antinuke.data.detection_available ? (
              <>
                {antinuke.data.workflow_running === false ? 'Not running' : 'Watching'} · acts at{' '}
                {antinuke.data.threshold} deletions in {antinuke.data.window_seconds} s · automatic action{' '}
                {antinuke.data.auto_action_enabled ? 'on' : 'off'}
              </>
            ) : (
              `Not on the ${antinuke.data.plan_code} plan`
            )
          ) : (
            '…'
          )}
        </Fact>
        <Fact label="Incidents">
          {incidents.isError ? (
            <ProblemMessage error={incidents.error} />
          ) : incidents.data ? (
            latestIncident ? (
              <>
                <Link href={pathTo('incidents', { guildId })}>{incidents.data.items.length} recorded</Link>
                <span className="muted"> · latest {relativeTime(latestIncident.opened_at)}</span>
              </>
            ) : (
              'None'
            )
          ) : (
            '…'
          )}
        </Fact>
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
