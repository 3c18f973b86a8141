import {
  type ArgumentsHost,
  Catch,
  Controller,
  Inject,
  type RpcExceptionFilter,
  type Type,
  UseFilters,
} from '@nestjs/common';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import type { Topic } from '@lib/contracts';
import { type Observable, throwError } from 'rxjs';
import { parseEnvelope } from './envelope.parser';
import type { EventProcessor } from './event-processor';
import { InProcessContext } from './in-process-event.server';

/**
 * What a consumer group does with each delivery its transport hands to its `@EventPattern`
 * handler: apply the event through the EventProcessor (once per consumer and event id, in the
 * transaction of its effect, see processed_events), or set a message that is no event aside; then,
 * on Kafka, commit the message's offset, only now that the apply committed. A crash before the
 * commit redelivers the message and processed_events absorbs it. An error worth retrying (database
 * down) is thrown: Kafka's consumer then fetches the message again, the in-process bus fails the
 * relay's round, which retries it.
 */
export class EventConsumer {
  constructor(
    private readonly processor: EventProcessor,
    private readonly groupId: string,
  ) {}

  async consume(context: KafkaContext | InProcessContext): Promise<void> {
    if (context instanceof InProcessContext) {
      // Standalone mode: the bus parsed the relay's batch; its events are applied as one batch.
      const delivery = context.getDelivery();
      if ('events' in delivery) await this.processor.process(delivery.events);
      else await this.processor.recordMalformed(this.groupId, delivery.reference, delivery.reason);
      return;
    }
    const message = context.getMessage();
    const topic = context.getTopic();
    const partition = context.getPartition();
    // The transport leaves the value as the bytes received (keepBinary); parsing is ours.
    const parsed = parseEnvelope(message.value);
    if ('event' in parsed) await this.processor.process([parsed.event]);
    else
      await this.processor.recordMalformed(
        this.groupId,
        `kafka:${topic}/${partition}/${message.offset}`,
        parsed.error,
      );
    await context
      .getConsumer()
      .commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
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
    consume(@Ctx() context: KafkaContext | InProcessContext): Promise<void> {
      return this.consumer.consume(context);
    }
  }
  return EventConsumerController;
}
