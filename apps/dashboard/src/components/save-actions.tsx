import type { UseMutationResult } from '@tanstack/react-query';
import { ProblemMessage } from '../app/layout';

/**
 * The end of a settings form: its submit button (`Saving…` while the save runs; left out when the
 * form cannot be saved), the `saved` note once it is done (announced to screen readers), and the
 * API's problem when it failed.
 */
export function SaveActions({
  save,
  label,
  saved,
  canSave = true,
}: {
  save: Pick<UseMutationResult<unknown, unknown, never>, 'isPending' | 'isSuccess' | 'isError' | 'error'>;
  label: string;
  saved: string;
  canSave?: boolean;
}) {
  return (
    <>
      {canSave && (
        <p className="actions">
          <button type="submit" className="button button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : label}
          </button>
        </p>
      )}
      <div aria-live="polite">{save.isSuccess && !save.isPending && <p className="success">{saved}</p>}</div>
      {save.isError && <ProblemMessage error={save.error} />}
    </>
  );
}
