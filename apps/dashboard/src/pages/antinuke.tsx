import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { QueryStatus } from '../app/layout';
import type { Schemas } from '../api/client';
import { ApiProblem } from '../api/problem';
import { useAntiNuke, useUpdateAntiNuke } from '../api/queries';
import { LockdownCard } from '../components/lockdown-card';
import { SaveActions } from '../components/save-actions';
import { dateTime } from '../format/time';
import { ExemptUsersField } from './antinuke-exempt';
import { PendingAntiNukeChange, pendingSavedText } from './antinuke-pending';
import { GuildPage } from './guild';

type View = Schemas['AntiNukeView'];
type Field =
  | 'enabled'
  | 'exempt_user_ids'
  | 'threshold'
  | 'window_seconds'
  | 'auto_action_enabled'
  | 'auto_action_mode'
  | 'auto_lockdown_enabled';
type Mode = View['auto_action_mode'];

const MODES: Record<Mode, string> = {
  quarantine: 'Quarantine only: take their dangerous roles',
  kick: 'Quarantine, then kick them',
  ban: 'Quarantine, then ban them',
};

const PLAN_NAMES: Record<string, string> = { FREE: 'Free', PRO: 'Pro', ENTERPRISE: 'Enterprise' };

/**
 * AntiNuke's setting: switched on or off, when it opens an incident (so many destructive actions
 * by one person within so many seconds), whether it also takes that person's roles away, and who
 * it never counts. On a plan without AntiNuke the setting is shown, disabled, with why.
 */
export function AntiNukePage({ guildId }: { guildId: string }) {
  const antinuke = useAntiNuke(guildId);
  return (
    <GuildPage guildId={guildId} title="AntiNuke">
      <QueryStatus query={antinuke} what="the AntiNuke setting" />
      {antinuke.data && <AntiNukeForm guildId={guildId} view={antinuke.data} />}
      {antinuke.data && <LockdownCard guildId={guildId} available={antinuke.data.detection_available} />}
    </GuildPage>
  );
}

function status(view: View): string {
  if (!view.detection_available) return 'Off: not on this plan';
  if (!view.enabled) return 'Off: switched off for this guild';
  if (view.workflow_running === true) return 'On: watching this guild';
  if (view.workflow_running === false) return 'Starting: AntiNuke is not watching yet';
  return 'Unknown: the workflow engine did not answer';
}

function AntiNukeForm({ guildId, view }: { guildId: string; view: View }) {
  const [threshold, setThreshold] = useState(String(view.threshold));
  const [windowSeconds, setWindowSeconds] = useState(String(view.window_seconds));
  const [autoAction, setAutoAction] = useState(view.auto_action_enabled);
  const [mode, setMode] = useState<Mode>(view.auto_action_mode);
  const [autoLockdown, setAutoLockdown] = useState(view.auto_lockdown_enabled);
  const [enabled, setEnabled] = useState(view.enabled);
  const [exempt, setExempt] = useState(view.exempt_user_ids);
  const update = useUpdateAntiNuke(guildId);
  const savedExempt = view.exempt_user_ids.join(',');
  // What another tab or a downgrade changed shows up here when the setting is read again.
  useEffect(() => {
    setThreshold(String(view.threshold));
    setWindowSeconds(String(view.window_seconds));
    setAutoAction(view.auto_action_enabled);
    setMode(view.auto_action_mode);
    setAutoLockdown(view.auto_lockdown_enabled);
    setEnabled(view.enabled);
    setExempt(savedExempt === '' ? [] : savedExempt.split(','));
  }, [
    view.threshold,
    view.window_seconds,
    view.auto_action_enabled,
    view.auto_action_mode,
    view.auto_lockdown_enabled,
    view.enabled,
    savedExempt,
  ]);
  const names = useMemo(
    () => new Map(view.exempt_users.map((user) => [user.platform_user_id, user.name])),
    [view.exempt_users],
  );

  const locked = !view.detection_available;
  const fieldErrors = update.error instanceof ApiProblem ? update.error.fieldErrors : [];
  const errorOf = (field: Field) => fieldErrors.find((error) => error.field === field)?.message;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({
      enabled,
      exempt_user_ids: exempt,
      threshold: threshold.trim() === '' ? Number.NaN : Number(threshold),
      window_seconds: windowSeconds.trim() === '' ? Number.NaN : Number(windowSeconds),
      auto_action_enabled: autoAction,
      auto_action_mode: mode,
      auto_lockdown_enabled: autoLockdown,
    });
  };
  const plan = PLAN_NAMES[view.plan_code] ?? view.plan_code;

  return (
    <>
      <dl className="facts">
        <div className="fact">
          <dt>Status</dt>
          <dd data-testid="antinuke-status">{status(view)}</dd>
        </div>
        <div className="fact">
          <dt>Plan</dt>
          <dd>{plan}</dd>
        </div>
        <div className="fact">
          <dt>Last changed</dt>
          <dd>{view.updated_at ? dateTime(view.updated_at) : 'Never: the defaults apply'}</dd>
        </div>
      </dl>
      {view.pending_change && <PendingAntiNukeChange guildId={guildId} pending={view.pending_change} />}
      {locked && (
        <div className="notice" role="note" data-testid="antinuke-unavailable">
          <p className="notice-title">AntiNuke is not part of the {plan} plan.</p>
          <p>
            On the Enterprise plan, AntiNuke watches the guild for a raid (many channels or roles deleted,
            members banned or kicked by one person in a short time), takes a snapshot of the guild at once and
            DMs the owner. The setting below shows what it would use; it can be changed once the guild is on
            Enterprise.
          </p>
        </div>
      )}
      <form className="card settings-form" onSubmit={submit} noValidate aria-describedby="antinuke-summary">
        <fieldset disabled={locked}>
          <legend>AntiNuke</legend>
          <label className="checkbox">
            <input
              type="checkbox"
              role="switch"
              checked={enabled}
              onChange={(event) => setEnabled(event.target.checked)}
              aria-describedby="antinuke-enabled-hint"
            />
            Watch this guild for raids
          </label>
          <p id="antinuke-enabled-hint" className="muted small">
            Switched off, AntiNuke counts nothing and opens no incident, whatever the plan. Switched on again,
            it starts counting afresh.
          </p>
          {errorOf('enabled') && <p className="field-error">{errorOf('enabled')}</p>}
        </fieldset>
        <fieldset disabled={locked}>
          <legend>When AntiNuke acts</legend>
          <p id="antinuke-summary" className="muted">
            An incident opens when one person makes <strong>{threshold || '?'}</strong> actions of one kind
            (channel deletions, role deletions, bans or kicks) within <strong>{windowSeconds || '?'}</strong>{' '}
            seconds. Every incident takes a snapshot of the guild and DMs its owner.
          </p>
          <NumberField
            id="antinuke-threshold"
            label="Actions by one person"
            hint="2 to 50 actions of the same kind"
            value={threshold}
            onChange={setThreshold}
            error={errorOf('threshold')}
          />
          <NumberField
            id="antinuke-window"
            label="Within (seconds)"
            hint="1 to 300 seconds"
            value={windowSeconds}
            onChange={setWindowSeconds}
            error={errorOf('window_seconds')}
          />
        </fieldset>
        <fieldset disabled={locked || !view.auto_action_available}>
          <legend>Automatic action</legend>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={autoAction}
              onChange={(event) => setAutoAction(event.target.checked)}
              aria-describedby="auto-action-hint"
            />
            Quarantine the person behind an incident
          </label>
          <p id="auto-action-hint" className="muted small">
            Takes away each of their roles that can do damage (administrator, manage the guild, roles,
            channels or webhooks, ban, kick, mention everyone); for a bot, its own role loses its permissions.
            This stops a raid at once, before anyone reads the DM, and the incident can give it all back. It
            never touches the guild&apos;s owner or guildkeeper&apos;s bot.
            {!view.auto_action_available && ' Needs the Enterprise plan.'}
          </p>
          {errorOf('auto_action_enabled') && <p className="field-error">{errorOf('auto_action_enabled')}</p>}
          <div className="field">
            <label htmlFor="auto-action-mode">And then</label>
            <select
              id="auto-action-mode"
              value={mode}
              disabled={!autoAction}
              onChange={(event) => setMode(event.target.value as Mode)}
            >
              {(Object.keys(MODES) as Mode[]).map((key) => (
                <option key={key} value={key}>
                  {MODES[key]}
                </option>
              ))}
            </select>
            {errorOf('auto_action_mode') && <p className="field-error">{errorOf('auto_action_mode')}</p>}
          </div>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={autoLockdown}
              onChange={(event) => setAutoLockdown(event.target.checked)}
              aria-describedby="auto-lockdown-hint"
            />
            Lock the guild down when an incident opens
          </label>
          <p id="auto-lockdown-hint" className="muted small">
            Pauses invites and DMs and stops @everyone sending messages for an hour; lift it from the Lockdown
            card below.
          </p>
          {errorOf('auto_lockdown_enabled') && (
            <p className="field-error">{errorOf('auto_lockdown_enabled')}</p>
          )}
        </fieldset>
        <ExemptUsersField
          ids={exempt}
          names={names}
          onChange={setExempt}
          serverError={errorOf('exempt_user_ids')}
          disabled={locked}
        />
        <SaveActions
          save={update}
          label="Save the setting"
          saved={pendingSavedText(update.data) ?? 'Saved. AntiNuke uses the new setting now.'}
          canSave={!locked}
        />
      </form>
    </>
  );
}

function NumberField({
  id,
  label,
  hint,
  value,
  onChange,
  error,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
      />
      <p id={`${id}-hint`} className="muted small">
        {hint}
      </p>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
