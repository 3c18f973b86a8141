import { TOPICS } from '@lib/contracts';
import { EventProcessor, KafkaEventConsumer, KafkaEventPublisher, ensureTopics } from '@lib/messaging';
import { OutboxRelay, OutboxWriter } from '@lib/outbox';
import type { DataSource } from 'typeorm';
import { runScript } from '../support/app-process';
import { createScratchSchema, dropSchema, openDataSource } from '../support/database';
import { snapshotCreated } from '../support/events';
import { TopicReader } from '../support/topic-reader';
import { testKafka } from '../support/test-kafka';
import { waitFor } from '../support/wait';

const kafka = testKafka('outbox-relay-test');

describe('OutboxRelay against Kafka', () => {
  let dataSource: DataSource;
  let schema: string;
  let writer: OutboxWriter;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    await ensureTopics(kafka);
    dataSource = await openDataSource();
  });

  beforeEach(async () => {
    schema = await createScratchSchema(dataSource, 'relay_test');
    writer = new OutboxWriter(schema, 'recovery');
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.stop()));
    await dropSchema(dataSource, schema);
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  function startRelay(): OutboxRelay {
    const relay = new OutboxRelay({
      schema,
      dataSource,
      databaseUrl: process.env.DATABASE_URL!,
      publisher: new KafkaEventPublisher(kafka),
      batchSize: 100,
    });
    relays.push(relay);
    relay.start();
    return relay;
  }

  async function unsentCount(): Promise<number> {
    const [row] = await dataSource.query(
      `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE sent_at IS NULL`,
    );
    return (row as { n: number }).n;
  }

  it('publishes each row exactly once when two relays share one outbox', async () => {
    const reader = new TopicReader(TOPICS.recovery);
    await reader.start();
    const ids: string[] = [];
    // Written in many small transactions while both relays are running, so they compete for rows.
    startRelay();
    startRelay();
    for (let batch = 0; batch < 40; batch++) {
      await dataSource.transaction(async (manager) => {
        const events = await writer.appendAll(
          manager,
          Array.from({ length: 25 }, () => snapshotCreated()),
        );
        ids.push(...events.map((e) => e.id));
      });
    }
    await waitFor('all rows marked sent', async () => (await unsentCount()) === 0, { timeoutMs: 60_000 });
    await reader.drain();
    await reader.stop();

    expect(ids).toHaveLength(1000);
    const counts = ids.map((id) => reader.seen.get(id) ?? 0);
    expect(counts.filter((n) => n === 0)).toHaveLength(0);
    expect(counts.filter((n) => n > 1)).toHaveLength(0);
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    const reader = new TopicReader(TOPICS.recovery);
    await reader.start();
    startRelay();
    let rolledBackId = '';
    await expect(
      dataSource.transaction(async (manager) => {
        rolledBackId = (await writer.append(manager, snapshotCreated())).id;
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    const committed = await dataSource.transaction((manager) => writer.append(manager, snapshotCreated()));

    await waitFor('the committed event on the topic', () => reader.seen.has(committed.id));
    await reader.drain();
    await reader.stop();
    expect(rolledBackId).not.toBe('');
    expect(reader.seen.has(rolledBackId)).toBe(false);
    const rows = await dataSource.query(`SELECT id FROM "${schema}".outbox`);
    expect(rows).toEqual([{ id: committed.id }]);
  });

  it('redelivers after a relay dies between publishing and marking sent, and the consumer applies it once', async () => {
    const event = await dataSource.transaction((manager) => writer.append(manager, snapshotCreated()));

    const crashing = runScript('test/fixtures/crash-after-publish.relay.ts', { RELAY_SCHEMA: schema });
    const { signal } = await crashing.exited;
    expect(signal).toBe('SIGKILL');
    expect(crashing.output()).toContain(`published ${event.id}`);
    expect(await unsentCount()).toBe(1);

    // A consumer with an effect table; it must apply the event once although it arrives twice.
    const processor = new EventProcessor(dataSource, schema, [
      {
        consumer: 'effect',
        eventTypes: ['SnapshotCreated'],
        handle: async (e, manager) => {
          await manager.query(`INSERT INTO "${schema}".effects (event_id) VALUES ($1)`, [e.id]);
        },
      },
    ]);
    const consumer = new KafkaEventConsumer({
      kafka,
      groupId: `relay-test-${schema}`,
      topics: [TOPICS.recovery],
      processor,
    });
    const reader = new TopicReader(TOPICS.recovery);
    await reader.start();
    await consumer.start();
    try {
      startRelay();
      await waitFor('the row to be marked sent', async () => (await unsentCount()) === 0);
      await reader.drain();
      expect(reader.seen.get(event.id)).toBe(2);
      await waitFor('the effect', async () => {
        const [row] = await dataSource.query(
          `SELECT count(*)::int AS n FROM "${schema}".processed_events WHERE event_id = $1`,
          [event.id],
        );
        return (row as { n: number }).n === 1;
      });
      // Only once the group has committed past both copies is the effect count final.
      const admin = kafka.admin();
      await admin.connect();
      const ends = await admin.fetchTopicOffsets(kafka.named(TOPICS.recovery));
      await waitFor('the consumer group to commit past both copies', async () => {
        const [committed] = await admin.fetchOffsets({
          groupId: kafka.named(`relay-test-${schema}`),
          topics: [kafka.named(TOPICS.recovery)],
        });
        return ends.every(
          (end) =>
            BigInt(committed.partitions.find((p) => p.partition === end.partition)?.offset ?? -1) >=
            BigInt(end.high),
        );
      });
      await admin.disconnect();
      const effects = await dataSource.query(`SELECT event_id FROM "${schema}".effects WHERE event_id = $1`, [
        event.id,
      ]);
      expect(effects).toEqual([{ event_id: event.id }]);
    } finally {
      await consumer.stop();
      await reader.stop();
    }
  });
});
