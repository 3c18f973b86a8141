// node:crypto makes this module unfit for Temporal's workflow sandbox: workflows import its types only.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { RestoreDiff } from './diff-model';

/**
 * The approved-diff fingerprint (docs/architecture.md "diff hash"): SHA-256 over the RFC 8785 canonical
 * JSON of the diff. The duration estimate is left out so that tuning the estimate never
 * invalidates a preview the user already approved.
 */
export function restoreDiffHash(diff: RestoreDiff): string {
  const { estimated_duration: _estimate, ...hashed } = diff;
  const canonical = canonicalize(hashed);
  if (canonical === undefined) throw new Error('a restore diff has no canonical JSON form');
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}
