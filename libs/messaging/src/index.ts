export * from './envelope.parser';
export * from './event-handler';
export * from './event-processor';
export * from './kafka';
export * from './kafka-event.consumer';
export * from './kafka-event.publisher';
export * from './messaging.module';
export * from './processed-events.schema';
