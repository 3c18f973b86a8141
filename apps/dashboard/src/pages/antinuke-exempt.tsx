import { type KeyboardEvent, useState } from 'react';

/** As the API checks it: a platform user id (snowflake), at most this many. */
const USER_ID = /^[0-9]{17,20}$/;
export const MAX_EXEMPT_USERS = 50;

/**
 * The users AntiNuke never counts (docs/behaviour.md §1.6): each shown by the name the API gave
 * for it, or by its id when the API knows none (not a member, or added and not saved yet). Ids are
 * checked here as the API does, so a typo is said at once, next to the field.
 */
export function ExemptUsersField({
  ids,
  names,
  onChange,
  serverError,
  disabled,
}: {
  ids: string[];
  names: ReadonlyMap<string, string | null>;
  onChange: (ids: string[]) => void;
  serverError: string | undefined;
  disabled: boolean;
}) {
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const error = problem ?? serverError;

  const add = () => {
    const id = draft.trim();
    const refusal = !USER_ID.test(id)
      ? 'A user id is 17 to 20 digits.'
      : ids.includes(id)
        ? 'This user is exempt already.'
        : ids.length >= MAX_EXEMPT_USERS
          ? `At most ${MAX_EXEMPT_USERS} users can be exempt.`
          : undefined;
    setProblem(refusal);
    if (refusal) return;
    onChange([...ids, id]);
    setDraft('');
  };
  // Enter adds the id; it does not save the whole setting.
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    add();
  };

  return (
    <fieldset disabled={disabled}>
      <legend>Who is exempt</legend>
      <p id="exempt-hint" className="muted small">
        AntiNuke never counts what these users do: your own other bots, or a co-owner you trust. Everyone else
        is counted, the owner included. Automatic action never takes roles from the owner or from
        guildkeeper&apos;s bot. At most {MAX_EXEMPT_USERS}; saved with the setting.
      </p>
      {ids.length === 0 ? (
        <p data-testid="exempt-none">Nobody is exempt.</p>
      ) : (
        <ul className="exempt-list" aria-label="Exempt users">
          {ids.map((id) => {
            const name = names.get(id) ?? null;
            return (
              <li key={id} data-testid="exempt-user">
                {name ? (
                  <>
                    {name} <span className="muted small">({id})</span>
                  </>
                ) : (
                  id
                )}{' '}
                <button
                  type="button"
                  className="button-quiet button-small"
                  onClick={() => onChange(ids.filter((other) => other !== id))}
                  aria-label={`Remove ${name ?? id} from the exempt users`}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div className="field">
        <label htmlFor="exempt-user-id">User id to exempt</label>
        <div className="inline-form">
          <input
            id="exempt-user-id"
            inputMode="numeric"
            autoComplete="off"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={onKeyDown}
            aria-invalid={error ? true : undefined}
            aria-describedby={`exempt-user-id-hint${error ? ' exempt-user-id-error' : ''}`}
          />
          <button type="button" className="button" onClick={add}>
            Add
          </button>
        </div>
        <p id="exempt-user-id-hint" className="muted small">
          The user&apos;s id, 17 to 20 digits (in Discord: Developer Mode on, then Copy User ID on the user).
        </p>
        {/* A live region that is always there, so a screen reader says each new refusal. */}
        <div aria-live="assertive">
          {error && (
            <p id="exempt-user-id-error" className="field-error">
              {error}
            </p>
          )}
        </div>
      </div>
    </fieldset>
  );
}
