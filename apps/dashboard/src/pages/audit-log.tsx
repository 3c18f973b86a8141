import { useMemo, useState } from 'react';
import { QueryStatus } from '../app/layout';
import {
  type AuditLogFilter,
  useAuditLog,
  useLicense,
  useMe,
  useMemberNames,
  useSnapshots,
} from '../api/queries';
import { AUDIT_KINDS, type AuditKind, describeAuditEntry, namedUsers } from '../format/audit-entry';
import { auditRetentionNote } from '../format/plans';
import { dateTime, relativeTime } from '../format/time';
import { GuildPage } from './guild';

const PAGE_SIZES = [10, 20, 50] as const;

/** `2026-11-01` (a date input's value) as the instant its day starts in the reader's time zone. */
function startOfDay(date: string): string | undefined {
  if (!date) return undefined;
  const at = new Date(`${date}T00:00:00`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The instant after the reader's day `date` ends: the "to" date is included. */
function endOfDay(date: string): string | undefined {
  const start = startOfDay(date);
  if (!start) return undefined;
  const next = new Date(start);
  next.setDate(next.getDate() + 1);
  return next.toISOString();
}

/**
 * The guild's history, newest first, a page at a time, by kind and date, each entry a sentence; how
 * long its plan keeps entries, once the guild's licence is at hand.
 */
export function AuditLogPage({ guildId }: { guildId: string }) {
  const [kind, setKind] = useState<AuditKind | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [pageSize, setPageSize] = useState<number>(20);
  // The cursors of the pages before this one: "Newer" goes back one.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const query: AuditLogFilter = {
    limit: pageSize,
    cursor,
    event_type: kind || undefined,
    from: startOfDay(from),
    to: endOfDay(to),
  };
  const log = useAuditLog(guildId, query);
  const me = useMe();
  const license = useLicense(guildId);
  const snapshots = useSnapshots(guildId, 100);
  const myUserId = me.data?.id ?? null;
  // Who this page's entries name; their sentences read "alice …" once the names arrive.
  const mentioned = useMemo(() => namedUsers(log.data?.items ?? [], myUserId), [log.data, myUserId]);
  const people = useMemberNames(guildId, mentioned);
  const names = useMemo(
    () => ({
      myUserId,
      snapshots: new Map((snapshots.data?.items ?? []).map((s) => [s.id, s.description ?? ''])),
      ...people,
    }),
    [myUserId, snapshots.data, people],
  );
  const filter = (change: () => void) => {
    change();
    setCursors([undefined]);
  };
  const items = log.data?.items ?? [];
  const page = cursors.length;

  return (
    <GuildPage guildId={guildId} title="Audit log">
      {license.data && (
        <p className="muted" data-testid="audit-retention">
          {auditRetentionNote(license.data.limits.audit_log_retention_days, license.data.plan.name)}
        </p>
      )}
      <form className="card filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="audit-kind">Kind</label>
          <select
            id="audit-kind"
            value={kind}
            onChange={(event) => filter(() => setKind(event.target.value as AuditKind | ''))}
          >
            <option value="">All kinds</option>
            {(Object.entries(AUDIT_KINDS) as [AuditKind, string][]).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <DateFilter
          id="audit-from"
          label="From"
          value={from}
          onChange={(day) => filter(() => setFrom(day))}
        />
        <DateFilter id="audit-to" label="To" value={to} onChange={(day) => filter(() => setTo(day))} />
        <div className="field">
          <label htmlFor="audit-page-size">Per page</label>
          <select
            id="audit-page-size"
            value={pageSize}
            onChange={(event) => filter(() => setPageSize(Number(event.target.value)))}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </div>
        {(kind || from || to) && (
          <button
            type="button"
            className="button button-quiet"
            onClick={() =>
              filter(() => {
                setKind('');
                setFrom('');
                setTo('');
              })
            }
          >
            Clear filters
          </button>
        )}
      </form>
      <QueryStatus query={log} what="the audit log" />
      {log.data && items.length === 0 && (
        <p role="status">
          {kind || from || to ? 'No entry matches these filters.' : 'Nothing has happened yet.'}
        </p>
      )}
      {items.length > 0 && (
        <ol
          className="audit-list"
          aria-label={`Audit log, page ${page}, newest first`}
          aria-busy={log.isFetching}
        >
          {items.map((entry) => (
            <li key={entry.event_id} className="audit-entry">
              <p className="audit-sentence">{describeAuditEntry(entry, names)}</p>
              <p className="muted small">
                <time dateTime={entry.occurred_at} title={dateTime(entry.occurred_at)}>
                  {dateTime(entry.occurred_at)}
                </time>{' '}
                ({relativeTime(entry.occurred_at)}) ·{' '}
                {AUDIT_KINDS[entry.event_type as AuditKind] ?? entry.event_type}
              </p>
            </li>
          ))}
        </ol>
      )}
      <nav className="pager" aria-label="Audit log pages">
        <button
          type="button"
          className="button"
          disabled={page === 1}
          onClick={() => setCursors((current) => current.slice(0, -1))}
        >
          Newer
        </button>
        <span aria-live="polite">Page {page}</span>
        <button
          type="button"
          className="button"
          disabled={!log.data?.next_cursor || log.isPlaceholderData}
          onClick={() => {
            const next = log.data?.next_cursor;
            if (next) setCursors((current) => [...current, next]);
          }}
        >
          Older
        </button>
      </nav>
    </GuildPage>
  );
}

/** One end of the date range, a day (`YYYY-MM-DD`) or '' for open. */
function DateFilter({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (day: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="date" value={value} onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}
