import type { KeyValueStore } from '@lib/key-value';
import { IDEMPOTENCY_TTL_SECONDS, WebhookIdempotency } from './webhook-idempotency';

function fakeStore(overrides: Partial<KeyValueStore> = {}) {
  const keys = new Map<string, string>();
  const store: Partial<KeyValueStore> = {
    setIfAbsent: jest.fn((key: string, value: string) => {
      if (keys.has(key)) return Promise.resolve(false);
      keys.set(key, value);
      return Promise.resolve(true);
    }),
    delete: jest.fn((key: string) => {
      keys.delete(key);
      return Promise.resolve();
    }),
    ...overrides,
  };
  return { store: store as KeyValueStore, keys };
}

describe(WebhookIdempotency.name, () => {
  it('claims idem:webhook:<source>:<id> for 24 h once, then reports it exists', async () => {
    const { store, keys } = fakeStore();
    const sut = new WebhookIdempotency(store);
    expect(await sut.claim('provider', 'evt_1')).toBe('acquired');
    expect(await sut.claim('provider', 'evt_1')).toBe('exists');
    expect(await sut.claim('other', 'evt_1')).toBe('acquired');
    expect([...keys.keys()]).toEqual(['idem:webhook:provider:evt_1', 'idem:webhook:other:evt_1']);
    expect(store.setIfAbsent).toHaveBeenCalledWith(
      'idem:webhook:provider:evt_1',
      '1',
      IDEMPOTENCY_TTL_SECONDS,
    );
    expect(IDEMPOTENCY_TTL_SECONDS).toBe(86_400);
  });

  it('releases a claim so the resend is acquired again', async () => {
    const { store } = fakeStore();
    const sut = new WebhookIdempotency(store);
    await sut.claim('provider', 'evt_2');
    await sut.release('provider', 'evt_2');
    expect(await sut.claim('provider', 'evt_2')).toBe('acquired');
  });

  it('answers unavailable when the store fails, and a failed release does not throw', async () => {
    const down = () => Promise.reject(new Error('connection refused'));
    const { store } = fakeStore({ setIfAbsent: down, delete: down });
    const sut = new WebhookIdempotency(store);
    expect(await sut.claim('provider', 'evt_3')).toBe('unavailable');
    await expect(sut.release('provider', 'evt_3')).resolves.toBeUndefined();
  });
});
