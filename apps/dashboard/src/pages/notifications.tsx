import { type FormEvent, useEffect, useState } from 'react';
import { Page, ProblemMessage, QueryStatus } from '../app/layout';
import type { Schemas } from '../api/client';
import { useNotificationPreferences, useSaveNotificationPreferences, useSendTestDm } from '../api/queries';
import { SaveActions } from '../components/save-actions';
import { dateTime } from '../format/time';

type Preferences = Schemas['NotificationPreferences'];
type Switch = 'payment_notifications' | 'restore_notifications' | 'incident_notifications';

const SWITCHES: { key: Switch; label: string; hint: string }[] = [
  {
    key: 'payment_notifications',
    label: 'Payments',
    hint: 'A subscription you pay for starts, or the card it is charged on changes.',
  },
  {
    key: 'restore_notifications',
    label: 'Restores',
    hint: 'A restore you started completes, fails, or stops because the guild was deleted.',
  },
  {
    key: 'incident_notifications',
    label: 'AntiNuke incidents',
    hint: 'AntiNuke sees a raid in a guild you own.',
  },
];

/** The user's own DM settings (not a guild's): which DMs the bot sends them, and a test DM. */
export function NotificationsPage() {
  const preferences = useNotificationPreferences();
  return (
    <Page title="Notifications">
      <p>guildkeeper sends you direct messages (DMs) on the chat platform. Choose which ones you want.</p>
      <QueryStatus query={preferences} what="your notification settings" />
      {preferences.data && <PreferencesForm saved={preferences.data} />}
      <TestDm />
    </Page>
  );
}

const switchesOf = (saved: Preferences): Record<Switch, boolean> => ({
  payment_notifications: saved.payment_notifications,
  restore_notifications: saved.restore_notifications,
  incident_notifications: saved.incident_notifications,
});

function PreferencesForm({ saved }: { saved: Preferences }) {
  const [values, setValues] = useState(() => switchesOf(saved));
  const save = useSaveNotificationPreferences();
  useEffect(() => setValues(switchesOf(saved)), [saved]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(values);
  };
  return (
    <form className="card settings-form" onSubmit={submit}>
      <fieldset>
        <legend>Send me a DM about</legend>
        {SWITCHES.map(({ key, label, hint }) => (
          <div key={key} className="field">
            <label className="checkbox">
              <input
                type="checkbox"
                checked={values[key]}
                onChange={(event) => setValues((current) => ({ ...current, [key]: event.target.checked }))}
                aria-describedby={`${key}-hint`}
              />
              {label}
            </label>
            <p id={`${key}-hint`} className="muted small">
              {hint}
            </p>
          </div>
        ))}
      </fieldset>
      <p className="muted small">
        DMs about plan changes, cancellations and snapshots you take are always sent.
        {saved.updated_at ? ` Last saved ${dateTime(saved.updated_at)}.` : ' These are the defaults.'}
      </p>
      <SaveActions save={save} label="Save" saved="Your notification settings are saved." />
    </form>
  );
}

function TestDm() {
  const send = useSendTestDm();
  return (
    <section className="card" aria-labelledby="test-dm-heading">
      <h2 id="test-dm-heading">Test DM</h2>
      <p>Check that the bot&apos;s DMs reach you: the platform may hold back DMs from server members.</p>
      <button type="button" className="button" disabled={send.isPending} onClick={() => send.mutate()}>
        {send.isPending ? 'Sending…' : 'Send me a test DM'}
      </button>
      <div aria-live="polite">
        {send.isSuccess && !send.isPending && (
          <div className="success-block">
            <p className="success">Sent at {dateTime(send.data.sent_at)}. Look in your DMs for:</p>
            <blockquote className="dm-text">{send.data.content}</blockquote>
          </div>
        )}
      </div>
      {send.isError && <ProblemMessage error={send.error} />}
    </section>
  );
}
