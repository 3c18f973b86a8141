// node:crypto makes this module unfit for Temporal's workflow sandbox: workflows import its types only.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { RestoreDiff } from './diff-model';

/**
 * The approved-diff fingerprint (docs/decisions/diff-hash.md): SHA-256 over the RFC 8785 canonical
 * JSON of the diff. The duration estimate is left out so that tuning the estimate never
 * invalidates a preview the user already approved.
 *
 * Of the members' part, only which roles are given back and whose bans are lifted count. In a large
 * guild someone joins, leaves or renames every few seconds; hashing the counts and names would
 * refuse nearly every start with ErrDiffChanged, while what the user approved (give these roles back
 * to whoever held them, lift these bans) has not changed.
 */
export function restoreDiffHash(diff: RestoreDiff): string {
  const {
    estimated_duration: _estimate,
    members_to_update: _members,
    members_absent: _absent,
    member_roles_to_restore: memberRoles,
    bans_to_lift: bans,
    ...hashed
  } = diff;
  const canonical = canonicalize({
    ...hashed,
    member_roles_to_restore: memberRoles.map((role) => role.role_id),
    bans_to_lift: bans.map((ban) => ban.user_id),
  });
  if (canonical === undefined) throw new Error('a restore diff has no canonical JSON form');
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}
