import type { IncomingMessage } from 'node:http';
import { clientAddress, WebhookRateLimiter } from './webhook-rate-limit';

function requestFrom(peer: string, forwardedFor?: string | string[]): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe(clientAddress.name, () => {
  it('takes the socket peer and ignores X-Forwarded-For when no proxy is trusted', () => {
    expect(clientAddress(requestFrom('10.0.0.9', '1.2.3.4'), 0)).toBe('10.0.0.9');
  });

  it('takes the address the outermost trusted proxy saw, never one the client wrote further left', () => {
    const viaIngress = requestFrom('10.0.0.9', '6.6.6.6, 203.0.113.7');
    expect(clientAddress(viaIngress, 1)).toBe('203.0.113.7');
    expect(clientAddress(requestFrom('10.0.0.9', '6.6.6.6, 203.0.113.7, 10.0.0.8'), 2)).toBe('203.0.113.7');
    expect(clientAddress(requestFrom('10.0.0.9', ['6.6.6.6', '203.0.113.7']), 1)).toBe('203.0.113.7');
  });

  it('takes the furthest address there is when the chain is shorter than the trusted hops', () => {
    expect(clientAddress(requestFrom('10.0.0.9', '203.0.113.7'), 3)).toBe('203.0.113.7');
    expect(clientAddress(requestFrom('10.0.0.9'), 1)).toBe('10.0.0.9');
    expect(clientAddress(requestFrom('10.0.0.9', ' , '), 1)).toBe('10.0.0.9');
  });
});

describe(WebhookRateLimiter.name, () => {
  const start = 1_800_000_000_000;

  it('admits the limit per address and minute, then answers with the seconds left in its window', () => {
    const sut = new WebhookRateLimiter(3, 0);
    const attacker = requestFrom('10.0.0.1');
    expect([0, 1, 2].map((i) => sut.admit(attacker, start + i * 1_000))).toEqual([null, null, null]);
    expect(sut.admit(attacker, start + 2_500)).toBe(58);
    expect(sut.admit(attacker, start + 59_001)).toBe(1);
    // Another address has its own window.
    expect(sut.admit(requestFrom('10.0.0.2'), start + 3_000)).toBeNull();
    // The window began with the first request; a minute later the address starts afresh.
    expect(sut.admit(attacker, start + 60_000)).toBeNull();
  });

  it('counts refused requests too, so a client that keeps sending stays refused until the window ends', () => {
    const sut = new WebhookRateLimiter(1, 0);
    const client = requestFrom('10.0.0.3');
    sut.admit(client, start);
    for (let i = 1; i < 100; i += 1) expect(sut.admit(client, start + i * 100)).not.toBeNull();
    expect(sut.admit(client, start + 60_000)).toBeNull();
  });

  it('is not fooled by a rotating X-Forwarded-For when no proxy is trusted', () => {
    const sut = new WebhookRateLimiter(2, 0);
    const answers = ['1.1.1.1', '2.2.2.2', '3.3.3.3'].map((spoofed) =>
      sut.admit(requestFrom('10.0.0.4', spoofed), start),
    );
    expect(answers).toEqual([null, null, 60]);
  });

  it('counts per forwarded client behind a trusted proxy', () => {
    const sut = new WebhookRateLimiter(1, 1);
    expect(sut.admit(requestFrom('10.0.0.9', '203.0.113.1'), start)).toBeNull();
    expect(sut.admit(requestFrom('10.0.0.9', '203.0.113.2'), start)).toBeNull();
    expect(sut.admit(requestFrom('10.0.0.9', '203.0.113.1'), start)).toBe(60);
  });

  it('admits everything when the limit is 0', () => {
    const sut = new WebhookRateLimiter(0, 0);
    const client = requestFrom('10.0.0.5');
    for (let i = 0; i < 10_000; i += 1) expect(sut.admit(client, start)).toBeNull();
  });

  it('forgets the windows that ended', () => {
    const sut = new WebhookRateLimiter(1, 0);
    for (let i = 0; i < 1_000; i += 1) sut.admit(requestFrom(`10.1.${i >> 8}.${i & 255}`), start);
    sut.admit(requestFrom('10.0.0.6'), start + 60_000);
    expect((sut as unknown as { windows: Map<string, unknown> }).windows.size).toBe(1);
  });
});
