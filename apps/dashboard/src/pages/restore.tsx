import { type FormEvent, useMemo, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ProblemMessage, QueryStatus } from '../app/layout';
import { Link, navigate } from '../app/router';
import { pathTo } from '../app/routes';
import { PROBLEM_CODES } from '../api/api.errors';
import type { Schemas } from '../api/client';
import { ApiProblem } from '../api/problem';
import { previewRestore, type RestoreScope, startRestore, useSnapshot, useSnapshots } from '../api/queries';
import { groupPreview } from '../format/restore-diff';
import { ALL_SCOPES, DEFAULT_SCOPES, SCOPE_LABELS } from '../format/restore-scopes';
import { dateTime } from '../format/time';
import { GuildPage } from './guild';
import { PreviewView } from './restore-preview';

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
  /** Preselected scopes (undoing a raid: every scope); null preselects DEFAULT_SCOPES. */
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
