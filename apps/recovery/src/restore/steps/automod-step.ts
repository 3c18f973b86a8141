import type { AutoModRuleItem } from '../restore-diff';
import { liveRule } from '../diff/automod-diff';
import { LiveLookup } from '../diff/live-lookup';
import { RESTORE_BATCH_SIZE, runConcurrently } from './concurrency';
import { waitedFor } from './platform-wait';
import { goneIsDone } from './removal-steps';
import { NOTHING, reason, type StepHandler } from './step-context';

const NO_PENDING = { roles: new Set<string>(), channels: new Set<string>() };

/**
 * RestoreAutoModRules: the rules the snapshot does not have deleted first (each trigger type has
 * its cap), then the missing ones made and the changed ones set back, with their exempt roles and
 * channels and alert channel as they are now (the roles and channels steps ran before). A rule an
 * earlier attempt made (the worker died before its new id was recorded) shows as one to delete with
 * the name and trigger of one to make: it is taken over and set back instead of made twice.
 */
export const restoreAutoModRules: StepHandler = async (platform, context) => {
  const { diff, target, live, ids, bot } = context.comparison;
  const lookup = new LiveLookup({ target, live, ids, bot, scope: [] });
  const rules = new Map((target.automod_rules ?? []).map((rule) => [rule.id, rule]));
  const deletes = [...(diff.automod_rules_to_delete ?? [])];
  const adopted = new Map<string, AutoModRuleItem>();
  for (const wanted of diff.automod_rules_to_create ?? []) {
    const index = deletes.findIndex(
      (orphan) => orphan.name === wanted.name && orphan.trigger_type === wanted.trigger_type,
    );
    if (index >= 0) adopted.set(wanted.id, deletes.splice(index, 1)[0]);
  }
  const creates = diff.automod_rules_to_create ?? [];
  const updates = diff.automod_rules_to_update ?? [];
  if (deletes.length > 0) {
    const batch = deletes.slice(0, RESTORE_BATCH_SIZE);
    await runConcurrently(batch, (rule) =>
      goneIsDone(platform.deleteAutoModRule(context.platformGuildId, rule.id, reason(context))),
    );
    return {
      ...NOTHING,
      deleted: batch.length,
      remaining: deletes.length - batch.length + creates.length + updates.length,
    };
  }
  const body = (id: string) => {
    const { id: _id, trigger_type: _type, ...fields } = liveRule(rules.get(id)!, lookup, NO_PENDING)!;
    return fields;
  };
  let created = 0;
  let updated = 0;
  const pause = waitedFor(
    await Promise.allSettled([
      runConcurrently(creates.slice(0, RESTORE_BATCH_SIZE), async (item) => {
        const orphan = adopted.get(item.id);
        const made = orphan
          ? await platform.updateAutoModRule(
              context.platformGuildId,
              orphan.id,
              body(item.id),
              reason(context),
            )
          : await platform.createAutoModRule(
              context.platformGuildId,
              { ...body(item.id), trigger_type: item.trigger_type },
              reason(context),
            );
        await context.recordReplacement('automod_rule', item.id, made.id);
        created++;
      }),
      runConcurrently(updates.slice(0, RESTORE_BATCH_SIZE), async (update) => {
        await platform.updateAutoModRule(
          context.platformGuildId,
          update.current.id,
          body(update.target.id),
          reason(context),
        );
        updated++;
      }),
    ]),
  );
  return {
    ...NOTHING,
    created,
    updated,
    remaining: creates.length + updates.length - created - updated,
    ...(pause && { pause }),
  };
};
