import { DomainError } from '@lib/problem-details';

/** 403 for what only the guild's owner may do (refuse a pending change, undo a snapshot's delete). */
export function ownerOnly(): DomainError {
  return new DomainError(
    'ErrOwnerOnly',
    403,
    'Only the server owner may do this',
    "Only the server's owner may refuse or apply early a pending AntiNuke change, and see or undo deleted snapshots.",
  );
}
