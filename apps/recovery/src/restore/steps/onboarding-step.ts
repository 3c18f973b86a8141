import { LiveLookup } from '../diff/live-lookup';
import { everyoneChatsIn, liveWelcomeFlow, onboardingDiffers } from '../diff/onboarding-diff';
import { describeStep } from './change-steps';
import { waitedFor } from './platform-wait';
import { NOTHING, reason, type StepHandler } from './step-context';

const NO_PENDING = { roles: new Set<string>(), channels: new Set<string>(), emojis: new Set<string>() };

/**
 * RestoreOnboarding: the welcome screen (one PATCH of all its fields) and the onboarding (one PUT
 * of the whole flow, its prompts and options under the snapshot's ids) put back, each only when
 * it differs, with the channels, roles and emojis they name as they are now (the steps that make
 * them ran before). Both writes replace the whole object, so they are idempotent: a call that runs
 * again after a worker died writes the same again and makes nothing twice, and once they match
 * the snapshot the comparison has nothing left to write.
 */
export const restoreOnboarding: StepHandler = async (platform, context) => {
  const { diff, target, live, ids, bot, expressions } = context.comparison;
  const screenChanges = diff.welcome_screen_changes ?? [];
  const writeOnboarding = onboardingDiffers(diff);
  if ((screenChanges.length === 0 && !writeOnboarding) || !target.onboarding) return NOTHING;
  const lookup = new LiveLookup({ target, live, ids, bot, scope: [] });
  const wanted = liveWelcomeFlow(
    { welcome_screen: target.welcome_screen, onboarding: target.onboarding },
    lookup,
    (id) => ids.resolve('emoji', id),
    NO_PENDING,
    expressions?.welcomeFlow?.welcomeScreen ?? null,
    everyoneChatsIn(live, target),
  );
  const guildId = context.platformGuildId;
  const outcome = { ...NOTHING };
  const settled = await Promise.allSettled([
    screenChanges.length > 0 && wanted.welcomeScreen
      ? platform.modifyWelcomeScreen(guildId, wanted.welcomeScreen, reason(context)).then(() => {
          outcome.updated += 1;
        })
      : undefined,
    writeOnboarding
      ? platform.modifyOnboarding(guildId, wanted.onboarding, reason(context)).then(() => {
          outcome.created += diff.onboarding_prompts_to_create?.length ?? 0;
          outcome.deleted += diff.onboarding_prompts_to_delete?.length ?? 0;
          outcome.updated +=
            (diff.onboarding_prompts_to_update?.length ?? 0) +
            Math.min(1, diff.onboarding_changes?.length ?? 0);
        })
      : undefined,
  ]);
  const pause = waitedFor(settled);
  // What a rate limit held back is written whole by the next call.
  const remaining =
    describeStep('RestoreOnboarding').changes(diff) - outcome.created - outcome.updated - outcome.deleted;
  return { ...outcome, ...(pause && { remaining, pause }) };
};
