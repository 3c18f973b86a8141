import { Logger } from '@nestjs/common';
import { entitlementsCacheGroupPrefix, KAFKA_HEADER_EVENT_TYPE, TOPICS } from '@lib/contracts';
import { type KafkaBatchContext, type KafkaClient, KafkaEventServer } from '@lib/messaging';
import type { KafkaMessage } from 'kafkajs';
import { v7 as uuidv7 } from 'uuid';
import type { EntitlementsClient } from './entitlements.client';

/** The events after which a guild's cached entitlements are stale. */
export const LICENSE_CHANGES = new Set(['LicenseUpgraded', 'LicenseDowngraded']);

/**
 * Drops a guild's cached entitlements in this process when licensing announces a licence change.
 * Every replica must hear every change, so each process reads `licensing.events` in a consumer
 * group of its own, from the newest offset and without committing; a change missed while it was
 * down is covered by the cache lifetime (60 s at most). It rides on Nest's Kafka transport like
 * the services' consumer groups, with its handler registered directly: a cache of the client's,
 * not an event the app applies.
 */
export class EntitlementsInvalidationListener {
  private readonly logger = new Logger(EntitlementsInvalidationListener.name);
  private readonly server: KafkaEventServer;

  constructor(
    kafka: KafkaClient,
    private readonly client: EntitlementsClient,
    service: string,
  ) {
    this.server = new KafkaEventServer(kafka, {
      // The prefix is the one the service's Kafka user may join (contracts' KAFKA_ACCESS).
      groupId: `${entitlementsCacheGroupPrefix(service)}${uuidv7()}`,
      fromBeginning: false,
      partitionsConsumedConcurrently: 1,
      maxWaitTimeInMs: 250,
      reportLag: false,
    });
    this.server.addHandler(
      TOPICS.licensing,
      (_messages: unknown, context: KafkaBatchContext) => {
        for (const message of context.getPayload().batch.messages) this.onMessage(message);
        return Promise.resolve();
      },
      true,
    );
  }

  start(): Promise<void> {
    return this.server.run();
  }

  async stop(): Promise<void> {
    await this.server.close();
  }

  private onMessage(message: KafkaMessage): void {
    const type = message.headers?.[KAFKA_HEADER_EVENT_TYPE]?.toString();
    // The message key is the guild id (docs/decisions/events.md).
    const guildId = message.key?.toString();
    if (type && guildId && LICENSE_CHANGES.has(type)) {
      this.client.invalidate(guildId);
      this.logger.debug({ guild_id: guildId, event_type: type }, 'cached entitlements dropped');
    }
  }
}
