import type { DomainError } from '@lib/problem-details';
import { AntiNukeErrors } from './antinuke.errors';

/**
 * 403 for what only the guild's owner may do (refuse a pending change, undo a snapshot's delete,
 * lift a lockdown early); `detail` says what, when it is not one of the first two.
 */
export function ownerOnly(
  detail = "Only the server's owner may refuse or apply early a pending AntiNuke change, and see or undo deleted snapshots.",
): DomainError {
  return AntiNukeErrors.ownerOnly(detail);
}
