export * from './domain-error';
export * from './problem';
export * from './problem-details.filter';
export * from './redact-url';
export * from './problem-answers';
export * from './problem-details.errors';
