import { type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EVENT_ENVELOPE_VERSION, TOPICS } from '@lib/contracts';
import {
  ensureTopics,
  EventConsumer,
  eventConsumerController,
  EventProcessor,
  KafkaEventPublisher,
  KafkaEventServer,
} from '@lib/messaging';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { createScratchSchema, dropSchema, openDataSource } from '../support/database';
import { snapshotCreated } from '../support/events';
import { testKafka } from '../support/test-kafka';
import { waitFor } from '../support/wait';

const kafka = testKafka('event-consumer-test');

/**
 * A consumer group as the apps run it: the `@EventPattern` controller of libs/messaging on Nest's
 * Kafka transport (KafkaEventServer), in a Nest microservice of its own.
 */
describe("a consumer group's @EventPattern handler on Nest's Kafka transport", () => {
  let dataSource: DataSource;
  let schema: string;
  let groupId: string;
  let app: INestMicroservice | undefined;
  let release: () => void = () => undefined;
  const publisher = new KafkaEventPublisher(kafka);
  const admin = kafka.admin();

  beforeAll(async () => {
    await ensureTopics(kafka);
    await admin.connect();
    dataSource = await openDataSource();
    schema = await createScratchSchema(dataSource, 'consumer_test');
    groupId = `consumer-test-${schema}`;
    // A new group reads from the earliest offset; this one starts at the end of the topic.
    await admin.resetOffsets({
      groupId: kafka.named(groupId),
      topic: kafka.named(TOPICS.recovery),
      earliest: false,
    });
  });

  afterAll(async () => {
    release();
    await app?.close();
    await publisher.close();
    await admin.disconnect();
    await dropSchema(dataSource, schema);
    await dataSource.destroy();
  });

  /** The committed offset of the group on `partition` (-1: none). */
  async function committed(partition: number): Promise<bigint> {
    const [{ partitions }] = await admin.fetchOffsets({
      groupId: kafka.named(groupId),
      topics: [kafka.named(TOPICS.recovery)],
    });
    return BigInt(partitions.find((p) => p.partition === partition)?.offset ?? -1);
  }

  it('fetches a message again after its apply failed, applies it once, and commits its offset only after', async () => {
    const event = {
      ...snapshotCreated(),
      id: uuidv7(),
      version: EVENT_ENVELOPE_VERSION,
      producer: 'recovery',
    };
    const attempts: string[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
      // A failed expectation below must not leave the apply held, or closing the app would wait.
      release = resolve;
    });
    const processor = new EventProcessor(dataSource, schema, [
      {
        consumer: 'effect',
        eventTypes: ['SnapshotCreated'],
        handle: async (received, manager) => {
          if (received.id !== event.id) return;
          attempts.push(received.id);
          if (attempts.length === 1) {
            // The first apply waits, then fails as a database outage would.
            await firstHeld;
            throw new Error('the database went away');
          }
          await manager.query(`INSERT INTO "${schema}".effects (event_id) VALUES ($1)`, [received.id]);
        },
      },
    ]);
    @Module({
      controllers: [eventConsumerController([TOPICS.recovery])],
      providers: [{ provide: EventConsumer, useValue: new EventConsumer(processor, groupId) }],
    })
    class GroupModule {}
    app = await NestFactory.createMicroservice(GroupModule, {
      strategy: new KafkaEventServer(kafka, { groupId }),
      logger: false,
    });
    await app.listen();

    await publisher.publish([
      {
        id: event.id,
        topic: TOPICS.recovery,
        key: event.guild_id,
        eventType: event.type,
        envelope: JSON.stringify({ ...event, occurred_at: new Date().toISOString() }),
      },
    ]);
    await waitFor('the first apply', () => attempts.length === 1, { timeoutMs: 60_000 });
    const offsets = await admin.fetchTopicOffsets(kafka.named(TOPICS.recovery));
    // The message is the last of its partition: the partition whose end moved past the reset. A
    // partition empty at the reset has no committed offset (-1): its position is 0, not before it.
    const partitionsBefore = await Promise.all(
      offsets.map(async ({ partition, high }) => ({
        partition,
        high: BigInt(high),
        at: await committed(partition),
      })),
    );
    const ours = partitionsBefore.find(({ high, at }) => (at < 0n ? 0n : at) < high);
    expect(ours).toBeDefined();
    // While the apply has not committed, neither has the offset: the group's position is at most
    // our message's (earlier messages fetched in the same batch wait with it).
    expect(ours!.at).toBeLessThanOrEqual(ours!.high - 1n);

    releaseFirst();
    await waitFor('the effect after the message came again', async () => {
      const rows = await dataSource.query(`SELECT 1 FROM "${schema}".effects WHERE event_id = $1`, [
        event.id,
      ]);
      return rows.length === 1;
    });
    await waitFor(
      'the offset committed past the message',
      async () => (await committed(ours!.partition)) >= ours!.high,
    );
    expect(attempts).toEqual([event.id, event.id]);
    const done = await dataSource.query(
      `SELECT status FROM "${schema}".processed_events WHERE consumer = 'effect' AND event_id = $1`,
      [event.id],
    );
    expect(done).toEqual([{ status: 'done' }]);
  });
});
