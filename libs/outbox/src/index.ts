export * from './event-publisher';
export * from './outbox.module';
export * from './outbox.relay';
export * from './outbox.schema';
export * from './outbox.writer';
export * from './outbox.repository';
