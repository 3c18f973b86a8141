import { Logger } from '@nestjs/common';
import { entitlementsCacheGroupPrefix, KAFKA_HEADER_EVENT_TYPE, TOPICS } from '@lib/contracts';
import type { Consumer, Kafka } from 'kafkajs';
import { v7 as uuidv7 } from 'uuid';
import type { EntitlementsClient } from './entitlements.client';

/** The events after which a guild's cached entitlements are stale. */
export const LICENSE_CHANGES = new Set(['LicenseUpgraded', 'LicenseDowngraded']);

/**
 * Drops a guild's cached entitlements in this process when licensing announces a licence change.
 * Every replica must hear every change, so each process reads `licensing.events` in a consumer
 * group of its own, from the newest offset and without committing; a change missed while it was
 * down is covered by the cache lifetime (60 s at most).
 */
export class EntitlementsInvalidationListener {
  private readonly logger = new Logger(EntitlementsInvalidationListener.name);
  private readonly consumer: Consumer;

  constructor(
    kafka: Kafka,
    private readonly client: EntitlementsClient,
    service: string,
  ) {
    this.consumer = kafka.consumer({
      // The prefix is the one the service's Kafka user may join (contracts' KAFKA_ACCESS).
      groupId: `${entitlementsCacheGroupPrefix(service)}${uuidv7()}`,
      maxWaitTimeInMs: 250,
      sessionTimeout: 30_000,
      retry: { retries: 10, restartOnFailure: () => Promise.resolve(true) },
    });
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: TOPICS.licensing, fromBeginning: false });
    await this.consumer.run({
      autoCommit: false,
      eachMessage: ({ message }) => {
        const type = message.headers?.[KAFKA_HEADER_EVENT_TYPE]?.toString();
        // The message key is the guild id (docs/architecture.md "Events").
        const guildId = message.key?.toString();
        if (type && guildId && LICENSE_CHANGES.has(type)) {
          this.client.invalidate(guildId);
          this.logger.debug({ guild_id: guildId, event_type: type }, 'cached entitlements dropped');
        }
        return Promise.resolve();
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
