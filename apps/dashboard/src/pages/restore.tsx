import { type FormEvent, type ReactNode, useMemo, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ProblemMessage, QueryStatus } from '../app/layout';
import { Link, navigate } from '../app/router';
import { pathTo } from '../app/routes';
import { PROBLEM_CODES } from '../api/api.errors';
import type { Schemas } from '../api/client';
import { ApiProblem } from '../api/problem';
import {
  isRunning,
  previewRestore,
  type RestoreScope,
  startRestore,
  useCancelRestore,
  useRestoreJob,
  useSnapshot,
  useSnapshots,
} from '../api/queries';
import { describeOverride } from '../format/permissions';
import { type ChangeKind, channelTypeName, type GroupedPreview, groupPreview } from '../format/restore-diff';
import { ALL_SCOPES, DEFAULT_SCOPES, SCOPE_LABELS } from '../format/restore-scopes';
import { dateTime, duration } from '../format/time';
import { GuildPage } from './guild';

const KIND_LABELS: Record<ChangeKind, string> = { create: 'Create', update: 'Update', delete: 'Delete' };

type Preview = Schemas['RestorePreviewView'];

/**
 * Restore: pick a snapshot and the scopes, read the preview, approve exactly that diff (its
 * `diff_hash`), then follow the job. A guild that changed since the preview is refused by the API
 * (`ErrDiffChanged`); the page then offers a fresh preview.
 */
export function RestorePage({
  guildId,
  presetSnapshotId,
  presetScopes = null,
}: {
  guildId: string;
  presetSnapshotId: string | null;
  /** Preselected scopes (undoing a raid: all six); null preselects DEFAULT_SCOPES. */
  presetScopes?: readonly RestoreScope[] | null;
}) {
  const snapshots = useSnapshots(guildId, 100);
  const [snapshotId, setSnapshotId] = useState<string>(presetSnapshotId ?? '');
  const [scopes, setScopes] = useState<RestoreScope[]>([...(presetScopes ?? DEFAULT_SCOPES)]);
  const [preRestoreSnapshot, setPreRestoreSnapshot] = useState(true);
  const [previewed, setPreviewed] = useState<{
    preview: Preview;
    snapshotId: string;
    scopes: RestoreScope[];
  } | null>(null);
  const chosen = snapshotId || snapshots.data?.items[0]?.id || '';
  const payload = useSnapshot(previewed?.snapshotId ?? null, true);
  const previewHeading = useRef<HTMLHeadingElement>(null);

  const preview = useMutation({
    mutationFn: () => previewRestore(chosen, scopes),
    onSuccess: (result) => {
      setPreviewed({ preview: result, snapshotId: chosen, scopes });
      requestAnimationFrame(() => previewHeading.current?.focus());
    },
  });
  const start = useMutation({
    mutationFn: (approved: NonNullable<typeof previewed>) =>
      startRestore({
        snapshot_id: approved.snapshotId,
        scope: approved.scopes,
        approved_diff_hash: approved.preview.diff_hash,
        options: { create_pre_restore_snapshot: preRestoreSnapshot },
      }),
    onSuccess: (job) => navigate(pathTo('restoreJob', { guildId, jobId: job.job_id })),
  });
  const changed = start.error instanceof ApiProblem && start.error.code === PROBLEM_CODES.diffChanged;
  const hasChanges = useMemo(
    () => (previewed ? groupPreview(previewed.preview).counts.total > 0 : false),
    [previewed],
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setPreviewed(null);
    start.reset();
    preview.mutate();
  };
  const toggle = (scope: RestoreScope, on: boolean) =>
    setScopes((current) =>
      ALL_SCOPES.filter((candidate) => (candidate === scope ? on : current.includes(candidate))),
    );

  return (
    <GuildPage guildId={guildId} title="Restore">
      <QueryStatus query={snapshots} what="snapshots" />
      {snapshots.data && snapshots.data.items.length === 0 && (
        <p>
          There is no snapshot to restore from yet.{' '}
          <Link href={pathTo('snapshots', { guildId })}>Take one</Link>.
        </p>
      )}
      {snapshots.data && snapshots.data.items.length > 0 && (
        <form className="card" onSubmit={submit} aria-labelledby="restore-choose">
          <h2 id="restore-choose">1. What to restore</h2>
          <label htmlFor="restore-snapshot">Snapshot</label>
          <select
            id="restore-snapshot"
            value={chosen}
            onChange={(event) => setSnapshotId(event.target.value)}
          >
            {presetSnapshotId && !snapshots.data.items.some((item) => item.id === presetSnapshotId) && (
              <option value={presetSnapshotId}>The chosen snapshot</option>
            )}
            {snapshots.data.items.map((item) => (
              <option key={item.id} value={item.id}>
                {dateTime(item.created_at)} · {item.description || item.trigger}
              </option>
            ))}
          </select>
          <fieldset>
            <legend>Parts of the guild</legend>
            {ALL_SCOPES.map((scope) => (
              <label key={scope} className="checkbox">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(event) => toggle(scope, event.target.checked)}
                />
                {SCOPE_LABELS[scope]}
              </label>
            ))}
          </fieldset>
          <button
            type="submit"
            className="button button-primary"
            disabled={preview.isPending || scopes.length === 0}
          >
            {preview.isPending ? 'Comparing with the guild…' : 'Preview the restore'}
          </button>
          {scopes.length === 0 && <p className="muted">Choose at least one part.</p>}
          {preview.isError && <ProblemMessage error={preview.error} />}
        </form>
      )}

      {previewed && (
        <section className="card" aria-labelledby="restore-preview">
          <h2 id="restore-preview" ref={previewHeading} tabIndex={-1}>
            2. What the restore will do
          </h2>
          <PreviewView preview={previewed.preview} payload={payload.data?.payload ?? null} />
          {hasChanges && !changed && (
            <div className="approve">
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={preRestoreSnapshot}
                  onChange={(event) => setPreRestoreSnapshot(event.target.checked)}
                />
                Take a snapshot of the guild as it is now, first
              </label>
              <button
                type="button"
                className="button button-danger"
                disabled={start.isPending}
                onClick={() => start.mutate(previewed)}
              >
                {start.isPending ? 'Starting…' : 'Restore'}
              </button>
              <p className="muted small">This applies exactly the changes listed above.</p>
            </div>
          )}
          {start.isError && (
            <ProblemMessage error={start.error}>
              {changed && (
                <button type="button" className="button" onClick={() => preview.mutate()}>
                  Preview again
                </button>
              )}
            </ProblemMessage>
          )}
        </section>
      )}
    </GuildPage>
  );
}

const countText = (counts: Record<ChangeKind, number>) =>
  (Object.keys(KIND_LABELS) as ChangeKind[])
    .filter((kind) => counts[kind] > 0)
    .map((kind) => `${counts[kind]} to ${kind}`)
    .join(', ') || 'nothing';

/** The preview as a readable diff, grouped like the snapshot tree, with counts per kind. */
export function PreviewView({
  preview,
  payload,
}: {
  preview: Preview;
  payload: Schemas['SnapshotPayload'] | null;
}) {
  const grouped: GroupedPreview = useMemo(() => groupPreview(preview, payload), [preview, payload]);
  const roleNames = useMemo(
    () => new Map((payload?.roles ?? []).map((role) => [role.id, role.name])),
    [payload],
  );
  const { counts } = grouped;
  if (counts.total === 0) {
    return (
      <div className="preview" data-testid="restore-preview">
        <p className="success" role="status">
          Nothing to restore: the guild already matches the snapshot in these parts.
        </p>
        <Skipped skipped={grouped.skipped} />
      </div>
    );
  }
  return (
    <div className="preview" data-testid="restore-preview">
      <table className="table counts">
        <caption>Changes by kind</caption>
        <tbody>
          <tr>
            <th scope="row">Roles</th>
            <td>{countText(counts.roles)}</td>
          </tr>
          <tr>
            <th scope="row">Channels</th>
            <td>{countText(counts.channels)}</td>
          </tr>
          <tr>
            <th scope="row">Overrides</th>
            <td>
              {counts.overrides.apply} to set, {counts.overrides.remove} to remove
            </td>
          </tr>
          <tr>
            <th scope="row">Guild settings</th>
            <td>{counts.settings} to change</td>
          </tr>
          {(counts.members > 0 || preview.members_absent > 0) && (
            <tr>
              <th scope="row">Members’ roles</th>
              <td>
                {counts.members} {counts.members === 1 ? 'member' : 'members'} to give roles back
                {preview.members_absent > 0 && `; ${preview.members_absent} no longer in the server`}
              </td>
            </tr>
          )}
          {counts.bans > 0 && (
            <tr>
              <th scope="row">Bans</th>
              <td>{counts.bans} to lift</td>
            </tr>
          )}
          <tr>
            <th scope="row">Skipped</th>
            <td>{counts.skipped}</td>
          </tr>
          <tr>
            <th scope="row">Estimated time</th>
            <td>{readableDuration(preview.estimated_duration)}</td>
          </tr>
        </tbody>
      </table>

      <PreviewSection id="preview-roles" title="Roles" count={grouped.roles.length}>
        <ul className="changes">
          {grouped.roles.map((role) => (
            <Change key={`${role.kind}:${role.id}`} kind={role.kind}>
              <span
                className="swatch"
                style={{
                  background: role.secondaryColor
                    ? `linear-gradient(90deg, ${role.color ?? 'transparent'}, ${role.secondaryColor})`
                    : (role.color ?? 'transparent'),
                }}
                aria-hidden="true"
              />
              <span className="role-name">{role.name}</span>
              <Fields fields={role.fields} />
              <Notes notes={role.notes} />
            </Change>
          ))}
        </ul>
      </PreviewSection>

      <PreviewSection id="preview-channels" title="Channels" count={grouped.channels.length}>
        {grouped.channels.map((group) => (
          <div key={group.categoryId ?? 'none'} className="category">
            <h4>
              {group.change && <span className="kind">{KIND_LABELS[group.change.kind]} category </span>}
              {group.name}
            </h4>
            {group.change && <Fields fields={group.change.fields} />}
            {group.channels.length > 0 && (
              <ul className="changes">
                {group.channels.map((channel) => (
                  <Change key={`${channel.kind}:${channel.id}`} kind={channel.kind}>
                    #{channel.name} <span className="muted small">{channelTypeName(channel.type)}</span>
                    <Fields fields={channel.fields} />
                    <Notes notes={channel.notes} />
                  </Change>
                ))}
              </ul>
            )}
          </div>
        ))}
      </PreviewSection>

      <PreviewSection
        id="preview-overrides"
        title="Channel permission overrides"
        count={grouped.overrides.length}
      >
        {grouped.overrides.map((group) => (
          <div key={group.channelId} className="category">
            <h4>#{group.channelName}</h4>
            <ul className="changes">
              {group.apply.map((item) => (
                <Change key={`set:${item.type}:${item.id}`} kind="create" label="Set">
                  {describeOverride(item, roleNames, item.target_name)}
                </Change>
              ))}
              {group.remove.map((item) => (
                <Change key={`remove:${item.type}:${item.id}`} kind="delete" label="Remove">
                  {describeOverride(item, roleNames, item.target_name)}
                </Change>
              ))}
            </ul>
          </div>
        ))}
      </PreviewSection>

      <PreviewSection id="preview-settings" title="Guild settings" count={grouped.settings.length}>
        <Fields fields={grouped.settings} />
      </PreviewSection>
      <MemberRoles preview={preview} />
      <PreviewSection id="preview-bans" title="Bans to lift" count={preview.bans_to_lift.length}>
        <p className="muted small">Bans made since the snapshot; a ban the snapshot has stays.</p>
        <ul className="changes">
          {preview.bans_to_lift.map((ban) => (
            <Change key={ban.user_id} kind="delete" label="Lift">
              {ban.name}
              {ban.reason && <span className="muted small"> (banned for: {ban.reason})</span>}
            </Change>
          ))}
        </ul>
      </PreviewSection>
      <Skipped skipped={grouped.skipped} />
    </div>
  );
}

/**
 * Who gets which role back: per role, how many members and a few of their names. Each member is
 * updated once, with all their roles; members who left are not added back (the platform needs
 * their consent), only counted.
 */
function MemberRoles({ preview }: { preview: Preview }) {
  const roles = preview.member_roles_to_restore;
  return (
    <PreviewSection id="preview-member-roles" title="Members’ roles" count={roles.length}>
      <ul className="changes">
        {roles.map((role) => (
          <Change key={role.role_id} kind="create" label="Give back">
            <span className="role-name">{role.role_name}</span> to {role.members}{' '}
            {role.members === 1 ? 'member' : 'members'}
            <span className="muted small">
              {' '}
              ({role.sample.join(', ')}
              {role.members > role.sample.length && ', …'})
            </span>
          </Change>
        ))}
      </ul>
      {preview.members_absent > 0 && (
        <p className="muted small">
          {preview.members_absent} {preview.members_absent === 1 ? 'member who' : 'members who'} held roles
          {preview.members_absent === 1 ? ' is' : ' are'} no longer in the server; a bot cannot add them back.
        </p>
      )}
    </PreviewSection>
  );
}

/** One line of the preview: what happens (by default the kind's label: Create, Update, Delete) and to what. */
function Change({ kind, label, children }: { kind: ChangeKind; label?: string; children: ReactNode }) {
  return (
    <li className={`change change-${kind}`}>
      <span className="kind">{label ?? KIND_LABELS[kind]}</span> {children}
    </li>
  );
}

/** One kind of change in the preview, under its own heading; nothing when there are `count` 0 of them. */
function PreviewSection({
  id,
  title,
  count,
  children,
}: {
  id: string;
  title: string;
  count: number;
  children: ReactNode;
}) {
  if (count === 0) return null;
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

function Fields({ fields }: { fields: { field: string; before: string; after: string }[] }) {
  if (!fields.length) return null;
  return (
    <dl className="fields">
      {fields.map(({ field, before, after }) => (
        <div key={field}>
          <dt>{field.replace(/_/g, ' ')}</dt>
          <dd>
            <del>{before}</del> <span aria-hidden="true">→</span>
            <span className="visually-hidden"> becomes </span> <ins>{after}</ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** What the live guild's limits change about an item's restore (a lower bitrate cap, no gradient). */
function Notes({ notes }: { notes: string[] }) {
  if (!notes.length) return null;
  return (
    <ul className="notes muted small">
      {notes.map((note) => (
        <li key={note}>Note: {note}</li>
      ))}
    </ul>
  );
}

function Skipped({ skipped }: { skipped: Preview['skipped'] }) {
  return (
    <PreviewSection id="preview-skipped" title="Skipped" count={skipped.length}>
      <ul className="changes">
        {skipped.map((item) => (
          <li key={`${item.scope}:${item.id}`} className="change change-skip">
            <span className="kind">Skip</span> {item.name}: {item.reason}
          </li>
        ))}
      </ul>
    </PreviewSection>
  );
}

/** ISO 8601 durations as the API estimates them (`PT1M30S`) in words. */
export function readableDuration(iso: string): string {
  const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso);
  if (!match) return iso;
  const [, hours, minutes, seconds] = match;
  const parts = [
    hours && `${hours} h`,
    minutes && `${minutes} min`,
    seconds && `${Math.ceil(Number(seconds))} s`,
  ].filter(Boolean);
  return parts.length ? `about ${parts.join(' ')}` : 'under a second';
}

type PlatformWait = NonNullable<Schemas['ProgressView']['waiting']>;

/** The running step's name as the API labels it (each step of the progress has its `label`). */
function currentLabel(progress: Schemas['ProgressView']): string {
  return progress.steps.find((step) => step.name === progress.current_step)?.label ?? '';
}

/** What the platform makes a restore wait for (ProgressView.waiting.reason). */
const WAIT_TEXT: Record<PlatformWait['reason'], string> = {
  role_creation_quota: 'the platform’s role creation quota (about 250 roles per 48 hours)',
  channel_creation_quota: 'the platform’s channel creation quota (about 500 channels per 48 hours)',
  channel_edit_limit: 'the platform’s limit on channel name and topic edits (2 per 10 minutes)',
  rate_limit: 'the platform’s rate limit',
};

/** A restore waiting for the platform: what for, until when, and that it goes on by itself. */
function PlatformWaitNotice({ wait }: { wait: PlatformWait }) {
  const until = new Date(wait.until);
  return (
    <p className="notice" role="status" data-testid="restore-waiting">
      Waiting for {WAIT_TEXT[wait.reason]} until <time dateTime={wait.until}>{until.toLocaleString()}</time>.
      The restore goes on by itself then; you can still cancel it.
    </p>
  );
}

const STATUS_TEXT: Record<Schemas['RestoreJobStatus'], string> = {
  pending: 'Waiting to start',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
};

/** A restore job: its steps as they progress (read every second), Cancel, then the result. */
export function RestoreJobPage({ guildId, jobId }: { guildId: string; jobId: string }) {
  const job = useRestoreJob(jobId);
  const cancel = useCancelRestore(jobId);
  const data = job.data;
  const running = isRunning(data?.status);
  const progress = data?.progress;
  return (
    <GuildPage guildId={guildId} title="Restore progress">
      <QueryStatus query={job} what="the restore" />
      {data && (
        <>
          <p className="status-line">
            Status: <strong data-testid="restore-status">{STATUS_TEXT[data.status]}</strong>
            {data.cancel_requested_at && running && ' · cancel requested'}
          </p>
          {progress && (
            <div className="progress-block">
              <label htmlFor="restore-progress">
                {progress.done} of {progress.total} changes
                {progress.current_step && ` · now: ${currentLabel(progress)}`}
              </label>
              <progress id="restore-progress" max={Math.max(progress.total, 1)} value={progress.done} />
              {progress.waiting && <PlatformWaitNotice wait={progress.waiting} />}
              <p className="visually-hidden" aria-live="polite">
                {progress.current_step ? `Now: ${currentLabel(progress)}` : ''}
              </p>
              <ol className="steps">
                {progress.steps.map((step) => (
                  <li key={step.name} className={`step step-${step.status}`}>
                    <span className="step-name">{step.label}</span>
                    <span className="step-status">
                      {step.status}
                      {step.total > 0 && ` · ${step.done}/${step.total}`}
                    </span>
                  </li>
                ))}
              </ol>
            </div>
          )}
          {running && (
            <p>
              <button
                type="button"
                className="button button-danger"
                disabled={cancel.isPending || data.cancel_requested_at !== null}
                onClick={() => cancel.mutate()}
              >
                {data.cancel_requested_at ? 'Canceling…' : 'Cancel the restore'}
              </button>
            </p>
          )}
          {cancel.isError && <ProblemMessage error={cancel.error} />}
          {!running && <RestoreResult guildId={guildId} job={data} />}
        </>
      )}
    </GuildPage>
  );
}

function RestoreResult({ guildId, job }: { guildId: string; job: Schemas['RestoreJobView'] }) {
  const summary = job.result_summary;
  return (
    <section aria-labelledby="restore-result" className="card">
      <h2 id="restore-result">Result</h2>
      {job.error_message && (
        <div className="problem" role="alert">
          <p className="problem-title">The restore did not finish</p>
          <p>{job.error_message}</p>
        </div>
      )}
      <dl className="facts">
        {job.started_at && job.completed_at && (
          <div className="fact">
            <dt>Took</dt>
            <dd>{duration(job.started_at, job.completed_at)}</dd>
          </div>
        )}
        {summary && (
          <div className="fact">
            <dt>Changes made</dt>
            <dd>
              roles {summary.roles_created} created, {summary.roles_updated} updated, {summary.roles_deleted}{' '}
              deleted; channels {summary.channels_created} created, {summary.channels_updated} updated,{' '}
              {summary.channels_deleted} deleted; overrides {summary.overrides_applied} set,{' '}
              {summary.overrides_removed} removed; settings {summary.guild_settings_updated}
              {summary.members_updated !== undefined &&
                `; ${summary.member_roles_restored ?? 0} roles given back to ${summary.members_updated} members` +
                  (summary.members_absent ? ` (${summary.members_absent} no longer in the server)` : '')}
              {summary.bans_lifted !== undefined && `; ${summary.bans_lifted} bans lifted`}; skipped{' '}
              {summary.skipped}
            </dd>
          </div>
        )}
        <div className="fact">
          <dt>Snapshot before the restore</dt>
          <dd>
            {job.pre_restore_snapshot_id ? (
              <Link href={pathTo('snapshot', { guildId, snapshotId: job.pre_restore_snapshot_id })}>
                Open the guild as it was before
              </Link>
            ) : (
              'none taken'
            )}
          </dd>
        </div>
      </dl>
      {job.warnings.length > 0 && (
        <ul>
          {job.warnings.map((warning) => (
            <li key={warning.code}>{warning.message}</li>
          ))}
        </ul>
      )}
      <p>
        <Link className="button" href={pathTo('restore', { guildId }, { snapshot: job.snapshot_id })}>
          Preview this snapshot again
        </Link>
      </p>
    </section>
  );
}
