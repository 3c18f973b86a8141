import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<string>();

/**
 * Runs `fn` as the work of `service`: everything it starts (servers, timers, consumers, the calls
 * they make) carries the name, and log lines say which service wrote them. Standalone mode runs
 * every service in one process, where Nest's static logger is the last app's; a service running
 * alone has no need of it (its logger names it).
 */
export function runAsService<T>(service: string, fn: () => T): T {
  return storage.run(service, fn);
}

/** The service whose work this is, when one was named (standalone mode). */
export function currentService(): string | undefined {
  return storage.getStore();
}

/**
 * From here on, the current request is `service`'s work, its body's events and everything after
 * them included: for one request listener that hands requests to several services (standalone
 * mode's public port). A wrapper would lose the name at the first event of the body, which Node
 * emits in the connection's context; this sets it on the request's own.
 */
export function enterService(service: string): void {
  storage.enterWith(service);
}
