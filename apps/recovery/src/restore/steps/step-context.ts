import type { ChatPlatformClient } from '@lib/chat-platform';
import type { RestoreComparison } from '../restore-comparisons';
import type { StoredImage } from '../../snapshots/images/image-store';
import type { IdKind, RestoreDiff } from '../restore-diff';
import type { NewWebhookAddress } from '../restore-jobs.repository';
import type { ChangeStep, StepOutcome } from '../workflows/restore-contract';

/** What one call of a change step works from. */
export interface StepContext {
  jobId: string;
  guildId: string;
  platformGuildId: string;
  comparison: RestoreComparison;
  /** The approved preview: how many roles and channels only move (counted once, when moved). */
  preview: RestoreDiff;
  /**
   * Steps running beside this one whose work it needs (StepRef.awaiting): what would name a role
   * or channel they have not made yet waits for a later call instead of going without it.
   */
  awaiting: readonly ChangeStep[];
  recordReplacement(kind: IdKind, originalId: string, replacementId: string): Promise<void>;
  /**
   * The kept images of `digests` (emojis, stickers, the guild's own), from the image store; fails
   * if one is missing, which the snapshot's references to them rule out.
   */
  readImages(digests: readonly string[]): Promise<Map<string, StoredImage>>;
  /**
   * Keeps a webhook's new address on the job (a credential: the job's row is the one place it is
   * kept; never in the step's outcome, which the workflow engine's history holds).
   */
  recordNewWebhook(webhook: NewWebhookAddress): Promise<void>;
  /** Adds to `comparison.ids` the replacements recorded since it was read (by the steps beside). */
  learnRecordedIds(): Promise<void>;
}

/**
 * One call of a change step: from a fresh comparison of the snapshot with the live guild, it makes
 * at most a batch of what is left, so running it again (a retry, a new worker) does only what is
 * still missing.
 */
export type StepHandler = (platform: ChatPlatformClient, context: StepContext) => Promise<StepOutcome>;

/** A call that changed nothing and leaves nothing. */
export const NOTHING: StepOutcome = { created: 0, updated: 0, deleted: 0, remaining: 0 };

/** The audit log reason of the restore's platform calls. */
export function reason(context: StepContext): { reason: string } {
  return { reason: `Restore ${context.jobId}` };
}

/** Entries of the approved preview whose only change is their place in the order. */
export function onlyMoved(updates: { changed_fields: string[] }[]): number {
  return updates.filter(
    (update) => update.changed_fields.length === 1 && update.changed_fields[0] === 'position',
  ).length;
}
