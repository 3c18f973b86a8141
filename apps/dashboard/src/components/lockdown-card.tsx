import { type FormEvent, useState } from 'react';
import { ProblemMessage, QueryStatus } from '../app/layout';
import { useLiftLockdown, useLockdown, useStartLockdown } from '../api/queries';
import { dateTime, relativeTime } from '../format/time';

/**
 * The guild's lockdown: in force (until when, lift it now), or a button to start one for so many
 * minutes. A lockdown pauses invites and DMs on the platform and stops @everyone sending messages;
 * lifting gives back exactly that.
 */
export function LockdownCard({ guildId, available }: { guildId: string; available: boolean }) {
  const lockdown = useLockdown(guildId);
  const start = useStartLockdown(guildId);
  const lift = useLiftLockdown(guildId);
  const [minutes, setMinutes] = useState('60');
  const current = lockdown.data?.lockdown ?? null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate(minutes.trim() === '' ? Number.NaN : Number(minutes));
  };

  return (
    <section className="card" aria-labelledby="lockdown-title" data-testid="lockdown">
      <h2 id="lockdown-title">Lockdown</h2>
      <QueryStatus query={lockdown} what="the lockdown" />
      {current ? (
        <>
          <p data-testid="lockdown-state">
            <strong>Locked down</strong> until{' '}
            <time dateTime={current.lockdown_until}>{dateTime(current.lockdown_until)}</time> (
            {relativeTime(current.lockdown_until)})
            {current.incident_id ? ', started by an AntiNuke incident' : ''}. Invites and DMs are paused
            {current.send_messages_taken ? ', and @everyone cannot send messages' : ''}.
          </p>
          <p className="actions">
            <button type="button" className="button" disabled={lift.isPending} onClick={() => lift.mutate()}>
              {lift.isPending ? 'Lifting…' : 'Lift now'}
            </button>
          </p>
          {lift.isError && <ProblemMessage error={lift.error} />}
        </>
      ) : (
        lockdown.data && (
          <form onSubmit={submit} noValidate>
            <fieldset disabled={!available}>
              <p className="muted">
                During a raid, pause invites and DMs and stop @everyone sending messages. It lifts itself
                after the time you set (at most 24 hours), giving back exactly what it changed.
                {!available && ' Needs AntiNuke on this plan.'}
              </p>
              <div className="field">
                <label htmlFor="lockdown-minutes">Minutes</label>
                <input
                  id="lockdown-minutes"
                  inputMode="numeric"
                  value={minutes}
                  onChange={(event) => setMinutes(event.target.value)}
                  aria-describedby="lockdown-minutes-hint"
                />
                <p id="lockdown-minutes-hint" className="muted small">
                  1 to 1440 minutes
                </p>
              </div>
              <p className="actions">
                <button type="submit" className="button button-danger" disabled={start.isPending}>
                  {start.isPending ? 'Locking down…' : 'Lock the guild down'}
                </button>
              </p>
            </fieldset>
            {start.isError && <ProblemMessage error={start.error} />}
          </form>
        )
      )}
    </section>
  );
}
