import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@lib/contracts';
import type { EventHandler } from '@lib/messaging';
import type { EntityManager } from 'typeorm';
import { PreferencesRepository } from '../preferences/preferences.repository';
import { NotificationsRepository } from './notifications.repository';
import { NOTIFYING_EVENT_TYPES, planDm } from './templates';

/**
 * Turns an event into the DM it calls for, recorded in the consumer's transaction (with the
 * processed-event row, so a redelivery adds nothing). Sending is DmSender's: a platform outage must
 * not hold up the partition, and the DM must survive a crash between the two.
 */
@Injectable()
export class DmPlanningHandler implements EventHandler {
  readonly consumer = 'notifications';
  readonly eventTypes = NOTIFYING_EVENT_TYPES;

  constructor(
    private readonly notifications: NotificationsRepository,
    private readonly preferences: PreferencesRepository,
  ) {}

  async handle(event: DomainEvent, manager: EntityManager): Promise<void> {
    const dm = planDm(event);
    if (!dm) return;
    // Read when the event is applied: a preference changed later does not recall a queued DM.
    const wanted =
      dm.preference === null ||
      (
        await this.preferences.forRecipient(
          { userId: dm.recipientUserId, platformUserId: dm.recipientPlatformUserId },
          manager,
        )
      )[dm.preference];
    await this.notifications.add(manager, event, dm, wanted ? 'pending' : 'suppressed');
  }
}
