import { RESTORE_SCOPES } from '@lib/contracts';
import type { OverrideItem, SkippedItem } from './diff-model';

/** Equal inputs must give byte-equal diffs, so every list has a total order. */
/** Snowflakes compare as numbers: a shorter one is smaller. No locale, so no platform drift. */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function byPosition(a: { position: number; id: string }, b: { position: number; id: string }): number {
  return a.position - b.position || compareIds(a.id, b.id);
}

export function byOverrideOrder(a: OverrideItem, b: OverrideItem): number {
  return compareIds(a.channel_id, b.channel_id) || compareIds(a.id, b.id) || compareIds(a.type, b.type);
}

export function bySkippedOrder(a: SkippedItem, b: SkippedItem): number {
  return RESTORE_SCOPES.indexOf(a.scope) - RESTORE_SCOPES.indexOf(b.scope) || compareIds(a.id, b.id);
}
