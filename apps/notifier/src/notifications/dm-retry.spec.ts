import { ChatPlatformError } from '@lib/chat-platform';
import { decideAfterFailure } from './dm-retry';

const policy = { baseMs: 1_000, maxAttempts: 4 };
const middle = () => 0.5;

describe(decideAfterFailure.name, () => {
  it('gives up at once on a DM the platform refuses for good (DMs closed, 50007)', () => {
    const blocked = new ChatPlatformError('DmBlocked', 'Cannot send messages to this user', {
      status: 403,
      platform_code: 50007,
      method: 'POST',
      path: '/channels/1/messages',
    });
    expect(decideAfterFailure(blocked, 1, policy, middle)).toEqual({
      kind: 'give_up',
      status: 'undeliverable',
      error: 'DmBlocked 50007: Cannot send messages to this user',
    });
  });

  it('retries an outage with exponential backoff', () => {
    const outage = new ChatPlatformError('PlatformUnavailable', '503 Service Unavailable');
    expect(decideAfterFailure(outage, 1, policy, middle)).toMatchObject({ kind: 'retry', delayMs: 1_000 });
    expect(decideAfterFailure(outage, 3, policy, middle)).toMatchObject({ kind: 'retry', delayMs: 4_000 });
  });

  it('spreads retries by ±20 %', () => {
    const outage = new Error('socket hang up');
    expect(decideAfterFailure(outage, 2, policy, () => 0)).toMatchObject({ delayMs: 1_600 });
    expect(decideAfterFailure(outage, 2, policy, () => 1)).toMatchObject({ delayMs: 2_400 });
  });

  it('stops retrying when attempts run out', () => {
    expect(decideAfterFailure(new Error('socket hang up'), 4, policy, middle)).toEqual({
      kind: 'give_up',
      status: 'failed',
      error: 'gave up after 4 attempts: socket hang up',
    });
  });

  it('never waits more than an hour', () => {
    expect(decideAfterFailure(new Error('x'), 30, { baseMs: 60_000, maxAttempts: 50 }, middle)).toMatchObject(
      {
        delayMs: 3_600_000,
      },
    );
  });
});
