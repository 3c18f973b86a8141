import { useState } from 'react';
import { ProblemMessage, QueryStatus } from '../app/layout';
import { Link } from '../app/router';
import { pathTo } from '../app/routes';
import type { Schemas } from '../api/client';
import { isRunning, useCancelRestore, useRestoreJob } from '../api/queries';
import { duration } from '../format/time';
import { GuildPage } from './guild';

/*
 * A restore job's page: its status, the running step and the progress of each (labelled by the API),
 * a wait the platform imposes, cancel while it runs, and the result once it ended.
 */

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
          {data.new_webhooks.length > 0 && <NewWebhooks webhooks={data.new_webhooks} />}
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

/**
 * The webhooks the restore made anew, with their new addresses (the guild's owner alone is sent
 * them: whoever holds one can post in its channel), each with a button that copies it.
 */
function NewWebhooks({ webhooks }: { webhooks: Schemas['NewWebhookView'][] }) {
  const hidden = webhooks.some((webhook) => webhook.address === null);
  return (
    <section aria-labelledby="new-webhooks" className="card">
      <h2 id="new-webhooks">Webhooks with new addresses</h2>
      <p>
        A webhook’s address cannot be restored: these were made anew, and whatever posted through the old
        addresses needs the new ones.
        {hidden && ' Only the server’s owner sees the addresses.'}
      </p>
      <table className="table" data-testid="new-webhooks">
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Webhook</th>
            <th scope="col">Address</th>
          </tr>
        </thead>
        <tbody>
          {webhooks.map((webhook) => (
            <tr key={webhook.webhook_id}>
              <td>#{webhook.channel_name}</td>
              <td>{webhook.name}</td>
              <td>{webhook.address === null ? 'owner only' : <WebhookAddress webhook={webhook} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function WebhookAddress({ webhook }: { webhook: Schemas['NewWebhookView'] }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <input
        type="text"
        readOnly
        value={webhook.address ?? ''}
        aria-label={`Address of ${webhook.name}`}
        onFocus={(event) => event.currentTarget.select()}
      />{' '}
      <button
        type="button"
        className="button"
        onClick={() => {
          void navigator.clipboard.writeText(webhook.address ?? '').then(() => setCopied(true));
        }}
      >
        {copied ? 'Copied' : `Copy the address of ${webhook.name}`}
      </button>
    </>
  );
}
