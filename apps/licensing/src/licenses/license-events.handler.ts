import { Injectable } from '@nestjs/common';
import { type DomainEvent, LICENSE_CHANGE_CAUSES } from '@lib/contracts';
import type { EventHandler } from '@lib/messaging';
import type { EntityManager } from 'typeorm';
import { LicenseChange } from './license-change';
import { LicenseService } from './license.service';

/**
 * Licensing follows billing (docs/behaviour.md §3.3): every subscription change lands on the guild's licence,
 * including a scheduled cancel and its withdrawal, which move only the renewal grace.
 */
@Injectable()
export class LicenseEventsHandler implements EventHandler {
  readonly consumer = 'license';
  readonly eventTypes = LICENSE_CHANGE_CAUSES;

  constructor(private readonly licenses: LicenseService) {}

  async handle(event: DomainEvent, manager: EntityManager): Promise<void> {
    if (LicenseChange.carriesNoLicence(event)) return;
    await this.licenses.apply(manager, LicenseChange.fromEvent(event));
  }
}
