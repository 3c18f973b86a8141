import 'reflect-metadata';
import '../test/support/test-env';
import { TOPICS } from '@lib/contracts';
import {
  createKafka,
  ensureTopics,
  EventProcessor,
  KafkaEventConsumer,
  KafkaEventPublisher,
} from '@lib/messaging';
import { OutboxRelay, OutboxWriter } from '@lib/outbox';
import { createScratchSchema, dropSchema, openDataSource } from '../test/support/database';
import { snapshotCreated } from '../test/support/events';
import { waitFor } from '../test/support/wait';
import { percentile } from './percentile';

/**
 * `npm run bench:outbox`: commit -> relay -> Kafka -> idempotent consumer, on this machine.
 * Burst: 20,000 events committed as fast as possible (throughput, and the latency a burst sees).
 * Steady: events committed at a fixed rate below capacity (the latency of normal operation).
 */
const BURST = 20_000;
const BURST_TX_SIZE = 500;
const STEADY_EVENTS = 3_000;
const STEADY_RATE_PER_S = 1_000;

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const kafka = createKafka(process.env.KAFKA_BROKERS!, 'bench-outbox');
  await ensureTopics(kafka);
  const dataSource = await openDataSource();
  const schema = await createScratchSchema(dataSource, 'bench_outbox');
  const writer = new OutboxWriter(schema, 'recovery');
  const committedAt = new Map<string, number>();
  const receivedAt = new Map<string, number>();

  const processor = new EventProcessor(dataSource, schema, [
    {
      consumer: 'bench',
      eventTypes: ['SnapshotCreated'],
      handle: (event) => {
        if (committedAt.has(event.id)) receivedAt.set(event.id, performance.now());
        return Promise.resolve();
      },
    },
  ]);
  const consumer = new KafkaEventConsumer({
    kafka,
    groupId: `bench-${schema}`,
    topics: [TOPICS.recovery],
    processor,
  });
  const relay = new OutboxRelay({
    schema,
    dataSource,
    databaseUrl: process.env.DATABASE_URL!,
    publisher: new KafkaEventPublisher(kafka),
  });
  try {
    await consumer.start();
    relay.start();
    // Warm up connections and the group assignment before measuring.
    const warm = await dataSource.transaction((m) => writer.append(m, snapshotCreated()));
    committedAt.set(warm.id, performance.now());
    await waitFor('warm-up event', () => receivedAt.has(warm.id), { timeoutMs: 60_000 });
    committedAt.clear();
    receivedAt.clear();

    // Burst.
    const burstStart = performance.now();
    for (let written = 0; written < BURST; written += BURST_TX_SIZE) {
      const events = await dataSource.transaction((m) =>
        writer.appendAll(
          m,
          Array.from({ length: BURST_TX_SIZE }, () => snapshotCreated()),
        ),
      );
      const now = performance.now();
      for (const event of events) committedAt.set(event.id, now);
    }
    const written = performance.now();
    await waitFor(
      'burst relayed',
      async () => {
        const [row] = await dataSource.query(
          `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE sent_at IS NULL`,
        );
        return (row as { n: number }).n === 0;
      },
      { timeoutMs: 300_000, intervalMs: 20 },
    );
    const relayed = performance.now();
    await waitFor('burst consumed', () => receivedAt.size === BURST, { timeoutMs: 300_000, intervalMs: 20 });
    const consumed = performance.now();
    const burstLatencies = [...committedAt].map(([id, at]) => receivedAt.get(id)! - at);

    // Steady rate.
    committedAt.clear();
    receivedAt.clear();
    const intervalMs = 1000 / STEADY_RATE_PER_S;
    const steadyStart = performance.now();
    for (let i = 0; i < STEADY_EVENTS; i++) {
      const due = steadyStart + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const event = await dataSource.transaction((m) => writer.append(m, snapshotCreated()));
      committedAt.set(event.id, performance.now());
    }
    await waitFor('steady events consumed', () => receivedAt.size === STEADY_EVENTS, { timeoutMs: 120_000 });
    const steadyLatencies = [...committedAt].map(([id, at]) => receivedAt.get(id)! - at);
    const steadySeconds = (performance.now() - steadyStart) / 1000;

    const seconds = (ms: number) => (ms / 1000).toFixed(2);
    const lines = [
      `outbox benchmark (one relay, one consumer, Kafka ${process.env.KAFKA_BROKERS}, ${BURST} events)`,
      `burst: written in ${seconds(written - burstStart)} s (${BURST / BURST_TX_SIZE} transactions of ${BURST_TX_SIZE})`,
      `burst: relayed in ${seconds(relayed - burstStart)} s -> ${Math.round(BURST / ((relayed - burstStart) / 1000))} events/s through one relay`,
      `burst: consumed in ${seconds(consumed - burstStart)} s -> ${Math.round(BURST / ((consumed - burstStart) / 1000))} events/s end to end`,
      `burst: commit -> consumer latency ${summary(burstLatencies)} (includes queueing behind the burst)`,
      `steady: ${STEADY_EVENTS} events, one per transaction, at ${Math.round(STEADY_EVENTS / steadySeconds)}/s (paced to at most ${STEADY_RATE_PER_S}/s): commit -> consumer latency ${summary(steadyLatencies)}`,
      `aims: >= 3000 events/s through one relay; p99 < 250 ms`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await relay.stop();
    await consumer.stop();
    await dropSchema(dataSource, schema);
    await dataSource.destroy();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
