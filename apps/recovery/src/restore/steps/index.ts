import { Injectable } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import type { ChangeStep, StepOutcome } from '../workflows/restore-contract';
import { createOrUpdateChannels } from './channel-steps';
import { restoreAutoModRules } from './automod-step';
import { restoreOnboarding } from './onboarding-step';
import { restoreEmojis, restoreStickers } from './expression-steps';
import { restoreGuildImages } from './guild-images-step';
import { restoreMemberRoles } from './member-roles-step';
import { applyPermissionOverrides } from './override-steps';
import { platformWaitOf } from './platform-wait';
import { deleteRemovedChannels, deleteRemovedOverrides, deleteRemovedRoles, liftBans } from './removal-steps';
import { createOrUpdateRoles } from './role-steps';
import { updateGuildSettings } from './settings-step';
import { restoreWebhooks } from './webhook-step';
import { NOTHING, type StepContext, type StepHandler } from './step-context';

export { RESTORE_BATCH_SIZE } from './concurrency';
export { MEMBER_BATCH_SIZE } from './member-roles-step';
export type { StepContext } from './step-context';

/** The handler of each change step of CHANGE_STEP_TABLE (the compiler asks for a new step's). */
export const STEP_HANDLERS: Record<ChangeStep, StepHandler> = {
  DeleteRemovedOverrides: deleteRemovedOverrides,
  DeleteRemovedChannels: deleteRemovedChannels,
  DeleteRemovedRoles: deleteRemovedRoles,
  CreateOrUpdateRoles: createOrUpdateRoles,
  CreateOrUpdateChannels: createOrUpdateChannels,
  ApplyPermissionOverrides: applyPermissionOverrides,
  UpdateGuildSettings: updateGuildSettings,
  RestoreMemberRoles: restoreMemberRoles,
  LiftBans: liftBans,
  RestoreEmojis: restoreEmojis,
  RestoreStickers: restoreStickers,
  RestoreGuildImages: restoreGuildImages,
  RestoreAutoModRules: restoreAutoModRules,
  RestoreOnboarding: restoreOnboarding,
  RestoreWebhooks: restoreWebhooks,
};

/**
 * The change steps of the restore over the platform. Each call works from a fresh comparison of
 * the snapshot with the live guild, so running a step again (a retry, a new worker) does only what
 * is still missing.
 */
@Injectable()
export class RestoreSteps {
  constructor(private readonly platform: ChatPlatformClient) {}

  /**
   * One call of the step. A long wait the platform asks for (a creation quota, a channel's
   * name/topic edits: the client fails those RateLimited rather than wait) ends the call with what
   * it did and the wait (StepOutcome.pause), for the workflow to wait out without an activity.
   */
  async run(step: ChangeStep, context: StepContext): Promise<StepOutcome> {
    try {
      return await STEP_HANDLERS[step](this.platform, context);
    } catch (error) {
      const pause = platformWaitOf(error);
      if (!pause) throw error;
      return { ...NOTHING, remaining: 1, pause };
    }
  }
}
