import {
  type ArgumentsHost,
  Catch,
  Controller,
  Inject,
  type RpcExceptionFilter,
  type Type,
  UseFilters,
} from '@nestjs/common';
import { Ctx, EventPattern } from '@nestjs/microservices';
import type { DomainEvent, Topic } from '@lib/contracts';
import { type Observable, throwError } from 'rxjs';
import { parseEnvelope } from './envelope.parser';
import type { EventProcessor } from './event-processor';
import { InProcessContext } from './in-process-event.server';
import type { KafkaBatchContext } from './kafka-event.server';

/**
 * What a consumer group does with each delivery its transport hands to its `@EventPattern`
 * handler, a batch (a partition's fetch on Kafka, a relay's batch in process): apply its events
 * through the EventProcessor in one go (once per consumer and event id, in the transaction of
 * their effect, see processed_events), and set the messages that are no event aside; then, on
 * Kafka, commit the batch's offsets, only now that the apply committed. A crash before the commit
 * redelivers the batch and processed_events absorbs it. An error worth retrying (database down) is
 * thrown: Kafka's consumer then fetches the batch again, the in-process bus fails the relay's
 * round, which retries it.
 */
export class EventConsumer {
  constructor(
    private readonly processor: EventProcessor,
    private readonly groupId: string,
  ) {}

  async consume(context: KafkaBatchContext | InProcessContext): Promise<void> {
    if (context instanceof InProcessContext) {
      // Standalone mode: the bus parsed the relay's batch; its events are applied as one batch.
      const delivery = context.getDelivery();
      if ('events' in delivery) await this.processor.process(delivery.events);
      else await this.processor.recordMalformed(this.groupId, delivery.reference, delivery.reason);
      return;
    }
    const payload = context.getPayload();
    const { batch } = payload;
    const events: DomainEvent[] = [];
    for (const message of batch.messages) {
      const parsed = parseEnvelope(message.value);
      if ('event' in parsed) events.push(parsed.event);
      else
        await this.processor.recordMalformed(
          this.groupId,
          `kafka:${batch.topic}/${batch.partition}/${message.offset}`,
          parsed.error,
        );
    }
    await this.processor.process(events);
    // autoCommit is off (KafkaEventServer): the committed offset is the next one to read.
    const next = (BigInt(batch.lastOffset()) + 1n).toString();
    await payload.commitOffsetsIfNecessary({
      topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }],
    });
    await payload.heartbeat();
  }
}

/**
 * Hands a handler's error back to the transport as it is. Nest's default filter for message
 * handlers logs it and replaces it with `{ status: 'error', message: 'Internal server error' }`;
 * the transport still fails the delivery then, but kafkajs's restart decision and our logs would
 * see that stand-in instead of the database's error.
 */
@Catch()
class PropagateErrors implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

/**
 * The service's consumer group as a Nest controller: one `@EventPattern` handler for the topics it
 * consumes (names from libs/contracts' TOPICS), on whichever transport the app connected (Kafka,
 * or the in-process bus in standalone mode). A class per service, since its topics are part of its
 * decorators and Nest's Kafka transport subscribes to exactly the patterns its handlers declare.
 */
export function eventConsumerController(topics: readonly Topic[]): Type {
  @Controller()
  @UseFilters(new PropagateErrors())
  class EventConsumerController {
    constructor(@Inject(EventConsumer) private readonly consumer: EventConsumer) {}

    @EventPattern([...topics])
    consume(@Ctx() context: KafkaBatchContext | InProcessContext): Promise<void> {
      return this.consumer.consume(context);
    }
  }
  return EventConsumerController;
}
