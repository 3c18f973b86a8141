export * from './chat-platform';
export * from './payment-provider';
