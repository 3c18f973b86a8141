import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import { type DomainEvent, TOPICS } from '@lib/contracts';
import type { OutboxMessage } from '@lib/outbox';
import { v7 as uuidv7 } from 'uuid';
import { EventConsumer, eventConsumerController } from './event-consumer';
import type { EventProcessor } from './event-processor';
import { InProcessEventBus } from './in-process-event-bus';
import { InProcessEventServer } from './in-process-event.server';

function message(topic: string, envelope?: string): OutboxMessage {
  const id = uuidv7();
  return {
    id,
    topic,
    key: 'guild-1',
    eventType: 'SubscriptionStarted',
    envelope:
      envelope ??
      JSON.stringify({
        id,
        type: 'SubscriptionStarted',
        version: 1,
        guild_id: 'guild-1',
        occurred_at: new Date().toISOString(),
        producer: 'billing',
        payload: {},
      }),
  };
}

/** Records what reached the processor; the first `failures` batches fail as a database outage would. */
function processor(failures = 0) {
  const applied: string[][] = [];
  const malformed: string[] = [];
  let calls = 0;
  const fake = {
    process: (events: readonly DomainEvent[]) => {
      calls += 1;
      if (calls <= failures) return Promise.reject(new Error('database down'));
      applied.push(events.map((event) => event.id));
      return Promise.resolve();
    },
    recordMalformed: (_consumer: string, reference: string) => {
      malformed.push(reference);
      return Promise.resolve();
    },
  };
  return { applied, malformed, processor: fake as unknown as EventProcessor };
}

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
    expect(licensing.applied).toEqual([billing.map((m) => m.id)]);
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
    expect(licensing.applied).toEqual([[batch[0].id]]);
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
