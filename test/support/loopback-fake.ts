/** What the sandbox's fakes (chat platform, payment provider) share: a loopback server to start, reset and stop. */
interface LoopbackFake {
  start(): Promise<{ url: string }>;
  reset(): void;
  stop(): Promise<void>;
}

/**
 * For the describe block that calls it: `fake` started before its tests (its `url` is then set),
 * reset before each test, so a test's own `beforeEach` seeds a fresh fake, and stopped after them all.
 */
export function fakeForSuite<T extends LoopbackFake>(fake: T): T {
  beforeAll(() => fake.start());
  beforeEach(() => fake.reset());
  afterAll(() => fake.stop());
  return fake;
}
