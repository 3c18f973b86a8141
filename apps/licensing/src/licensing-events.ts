import { Injectable } from '@nestjs/common';
import type { EventPayloads } from '@lib/contracts';
import { OutboxWriter } from '@lib/outbox';
import type { EntityManager } from 'typeorm';
import type { License } from './licenses/license.entity';

/**
 * Licensing's domain events (docs/behaviour.md §6): a licence's plan rank went up or down. Written in the
 * transaction that changed the licence.
 */
@Injectable()
export class LicensingEvents {
  constructor(private readonly outbox: OutboxWriter) {}

  async upgraded(manager: EntityManager, license: License, payload: EventPayloads['LicenseUpgraded']) {
    await this.outbox.append(manager, { ...about(license), type: 'LicenseUpgraded', payload });
  }

  async downgraded(manager: EntityManager, license: License, payload: EventPayloads['LicenseDowngraded']) {
    await this.outbox.append(manager, { ...about(license), type: 'LicenseDowngraded', payload });
  }
}

function about(license: License) {
  return { aggregate_type: 'license', aggregate_id: license.id, guild_id: license.guildId };
}
