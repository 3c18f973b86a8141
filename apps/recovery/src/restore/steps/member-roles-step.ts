import { isChatPlatformError } from '@lib/chat-platform';
import { runConcurrently } from './concurrency';
import { NOTHING, reason, type StepHandler } from './step-context';

/**
 * Members one call of the members' roles step updates. Each call re-reads the member list (a page
 * per 1,000 members), so the batch is larger than the others' to keep those reads a small share of
 * the calls; the member-update bucket lets about 10 a second through, so a call still hands back
 * within a minute or so, well inside the activity's time-out (and it heartbeats meanwhile).
 */
export const MEMBER_BATCH_SIZE = 500;

/**
 * RestoreMemberRoles: one update per member, setting the roles they have now plus all those they
 * get back. Setting the whole list (rather than a call per role) is what keeps the calls at one per
 * member; the list was read in this same call, so a role given meanwhile is the only thing it could
 * undo. A member who left since the read is passed over: the platform does not let the bot add
 * them back.
 */
export const restoreMemberRoles: StepHandler = async (platform, context) => {
  const updates = context.comparison.memberUpdates;
  const batch = updates.slice(0, MEMBER_BATCH_SIZE);
  let updated = 0;
  let assigned = 0;
  await runConcurrently(batch, async (update) => {
    try {
      await platform.setMemberRoles(
        context.platformGuildId,
        update.member_id,
        [...update.current, ...update.add],
        reason(context),
      );
      updated++;
      assigned += update.add.length;
    } catch (error) {
      if (!(isChatPlatformError(error) && error.code === 'NotFound')) throw error;
    }
  });
  return { ...NOTHING, updated, assigned, remaining: updates.length - batch.length };
};
