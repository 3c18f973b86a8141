import { useState } from 'react';
import { ProblemMessage } from '../app/layout';
import { ListTable } from '../components/list-table';
import { useDeletedSnapshots, useDeleteSnapshot, useOwnsGuild, useUndeleteSnapshot } from '../api/queries';
import { dateTime } from '../format/time';

/** What a delete does, said before it is done. */
export const DELETE_EXPLAINED =
  "Deleting hides the snapshot at once and frees its slot. The server's owner is told and can undo it for a grace period (7 days unless the operator set another); after that it is gone for good. A snapshot an open AntiNuke incident keeps cannot be deleted.";

/** A row's delete button, asking first and saying what happens. */
export function DeleteSnapshotButton({
  guildId,
  snapshotId,
  label,
}: {
  guildId: string;
  snapshotId: string;
  label: string;
}) {
  const [asking, setAsking] = useState(false);
  const remove = useDeleteSnapshot(guildId);
  if (!asking) {
    return (
      <button type="button" className="button button-small" onClick={() => setAsking(true)}>
        Delete<span className="visually-hidden"> the snapshot of {label}</span>
      </button>
    );
  }
  return (
    <div role="group" aria-label={`Delete the snapshot of ${label}`}>
      <p className="small">{DELETE_EXPLAINED}</p>
      <button
        type="button"
        className="button button-small"
        disabled={remove.isPending}
        onClick={() => remove.mutate(snapshotId)}
      >
        Delete it
      </button>{' '}
      <button type="button" className="button button-small" onClick={() => setAsking(false)}>
        Keep it
      </button>
      {remove.isError && <ProblemMessage error={remove.error} />}
    </div>
  );
}

/** The owner's list of deleted snapshots, each with "Undo delete" until it is purged. */
export function DeletedSnapshots({ guildId }: { guildId: string }) {
  const owner = useOwnsGuild(guildId);
  const deleted = useDeletedSnapshots(guildId, owner);
  const undelete = useUndeleteSnapshot(guildId);
  const items = deleted.data?.items ?? [];
  if (!owner || items.length === 0) return null;
  return (
    <>
      <h2>Deleted snapshots</h2>
      <p className="muted">
        Only you, the server&apos;s owner, see these. Each is gone for good at the time shown.
      </p>
      <ListTable
        caption="Deleted snapshots, most recently deleted first"
        columns={[
          'Taken',
          'Description',
          'Deleted',
          'By',
          'Gone on',
          <span className="visually-hidden">Actions</span>,
        ]}
      >
        {items.map((snapshot) => (
          <tr key={snapshot.id}>
            <td data-label="Taken">{dateTime(snapshot.created_at)}</td>
            <td data-label="Description">{snapshot.description || <span className="muted">none</span>}</td>
            <td data-label="Deleted">{dateTime(snapshot.deleted_at)}</td>
            <td data-label="By">user {snapshot.deleted_by_platform_user_id}</td>
            <td data-label="Gone on">{dateTime(snapshot.purge_after)}</td>
            <td>
              <button
                type="button"
                className="button button-small"
                disabled={undelete.isPending}
                onClick={() => undelete.mutate(snapshot.id)}
              >
                Undo delete
              </button>
            </td>
          </tr>
        ))}
      </ListTable>
      {undelete.isError && <ProblemMessage error={undelete.error} />}
    </>
  );
}
