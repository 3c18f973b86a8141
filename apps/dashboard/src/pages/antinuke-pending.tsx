import type { Schemas } from '../api/client';
import { ProblemMessage } from '../app/layout';
import { useOwnsGuild, usePendingAntiNukeChange } from '../api/queries';
import { dateTime, relativeTime } from '../format/time';

type Pending = Schemas['PendingChangeView'];
type Setting = Pending['before'];

const FIELDS: [keyof Setting, string][] = [
  ['enabled', 'AntiNuke'],
  ['exempt_user_ids', 'Exempt users'],
  ['threshold', 'Actions by one person'],
  ['window_seconds', 'Within (seconds)'],
  ['auto_action_enabled', 'Automatic action'],
  ['auto_action_mode', 'Automatic action does'],
  ['auto_lockdown_enabled', 'Lock down on an incident'],
];

function value(setting: Setting, field: keyof Setting): string {
  const v = setting[field];
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  if (Array.isArray(v)) return v.length ? v.join(', ') : 'nobody';
  return String(v);
}

/** What a save answered 202 with, as the form says it: nothing changed yet, and when it would. */
export function pendingSavedText(answer: unknown): string | null {
  if (!answer || typeof answer !== 'object' || !('applies_at' in answer)) return null;
  const appliesAt = (answer as Pending).applies_at;
  return `Not applied yet: this loosens AntiNuke, so it applies on ${dateTime(appliesAt)} unless the server's owner refuses it. The owner has been told by DM.`;
}

/**
 * A change that loosens AntiNuke, asked for by a manager who is not the owner: who asked, what
 * changes, when it applies. The owner may refuse it or apply it now; everyone else sees it.
 */
export function PendingAntiNukeChange({ guildId, pending }: { guildId: string; pending: Pending }) {
  const owner = useOwnsGuild(guildId);
  const action = usePendingAntiNukeChange(guildId);
  const who = pending.requested_by_name
    ? `${pending.requested_by_name} (user ${pending.requested_by_platform_user_id})`
    : `user ${pending.requested_by_platform_user_id}`;
  const changed = FIELDS.filter(([field]) => value(pending.before, field) !== value(pending.after, field));
  return (
    <section
      className="notice"
      role="note"
      aria-labelledby="pending-change-title"
      data-testid="antinuke-pending"
    >
      <p id="pending-change-title" className="notice-title">
        A change that loosens AntiNuke is waiting
      </p>
      <p>
        {who} asked for it {relativeTime(pending.requested_at)}. It applies on{' '}
        <time dateTime={pending.applies_at}>{dateTime(pending.applies_at)}</time> unless the server&apos;s
        owner refuses it first. Until then AntiNuke keeps the setting below.
      </p>
      <ul>
        {changed.map(([field, label]) => (
          <li key={field}>
            {label}: {value(pending.before, field)} → <strong>{value(pending.after, field)}</strong>
            {pending.loosened.includes(field) && ' (weaker protection)'}
          </li>
        ))}
      </ul>
      {owner ? (
        <p className="actions">
          <button
            type="button"
            className="button button-primary"
            disabled={action.isPending}
            onClick={() => action.mutate({ changeId: pending.id, action: 'refuse' })}
          >
            Refuse
          </button>
          <button
            type="button"
            className="button"
            disabled={action.isPending}
            onClick={() => action.mutate({ changeId: pending.id, action: 'approve' })}
          >
            Apply now
          </button>
        </p>
      ) : (
        <p className="muted small">Only the server&apos;s owner can refuse it or apply it early.</p>
      )}
      {action.isError && <ProblemMessage error={action.error} />}
    </section>
  );
}
