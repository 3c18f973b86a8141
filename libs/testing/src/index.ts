export * from './chat-platform';
