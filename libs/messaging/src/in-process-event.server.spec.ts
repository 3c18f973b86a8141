import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import { type DomainEvent, TOPICS } from '@lib/contracts';
import { outboxMessage as message, recordingProcessor as processor } from './event-bus.fixture';
import { EventConsumer, eventConsumerController } from './event-consumer';
import type { EventProcessor } from './event-processor';
import { InProcessEventBus } from './in-process-event-bus';
import { InProcessEventServer } from './in-process-event.server';

/** The event ids of each batch applied. */
const ids = (batches: DomainEvent[][]) => batches.map((batch) => batch.map((event) => event.id));

/** A Nest microservice of one consumer group's `@EventPattern` controller on the in-process transport. */
async function consumerGroup(
  bus: InProcessEventBus,
  groupId: string,
  topics: (typeof TOPICS)[keyof typeof TOPICS][],
  events: EventProcessor,
): Promise<INestMicroservice> {
  @Module({
    controllers: [eventConsumerController(topics)],
    providers: [{ provide: EventConsumer, useValue: new EventConsumer(events, groupId) }],
  })
  class GroupModule {}
  const app = await NestFactory.createMicroservice(GroupModule, {
    strategy: new InProcessEventServer(groupId, bus),
    logger: false,
  });
  await app.listen();
  return app;
}

describe(InProcessEventServer.name, () => {
  const apps: INestMicroservice[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  it("hands each relay batch of the group's topics to its @EventPattern handler, nothing else", async () => {
    const bus = new InProcessEventBus();
    const licensing = processor();
    apps.push(await consumerGroup(bus, 'licensing', [TOPICS.billing], licensing.processor));
    const billing = [message(TOPICS.billing), message(TOPICS.billing)];
    await bus.deliver(billing);
    await bus.deliver([message(TOPICS.recovery)]);
    expect(ids(licensing.applied)).toEqual([billing.map((m) => m.id)]);
  });

  it("fails the relay's round with the handler's own error, and applies the batch on its retry", async () => {
    const bus = new InProcessEventBus();
    const licensing = processor(1);
    apps.push(await consumerGroup(bus, 'licensing', [TOPICS.billing], licensing.processor));
    const batch = [message(TOPICS.billing)];
    const failed = bus.deliver(batch);
    await expect(failed).rejects.toThrow('1 consumer group(s) could not apply the batch');
    await expect(failed).rejects.toMatchObject({ cause: new Error('database down') });
    await bus.deliver(batch);
    expect(ids(licensing.applied)).toEqual([[batch[0].id]]);
  });

  it('sets a message that is not an event aside through the handler, naming its outbox row', async () => {
    const bus = new InProcessEventBus();
    const notifier = processor();
    apps.push(await consumerGroup(bus, 'notifier', [TOPICS.billing, TOPICS.recovery], notifier.processor));
    const broken = message(TOPICS.recovery, '{"not":"an event"}');
    await bus.deliver([broken]);
    expect(notifier.malformed).toEqual([`outbox:${TOPICS.recovery}/${broken.id}`]);
  });

  it('stops receiving once the application is closed', async () => {
    const bus = new InProcessEventBus();
    const licensing = processor();
    const app = await consumerGroup(bus, 'licensing', [TOPICS.billing], licensing.processor);
    await app.close();
    await bus.deliver([message(TOPICS.billing)]);
    expect(licensing.applied).toEqual([]);
  });
});
