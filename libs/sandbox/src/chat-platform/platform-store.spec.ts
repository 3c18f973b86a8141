import type { DmRecord } from './platform-state';
import { NONCE_WINDOW_MS, PlatformStore } from './platform-store';

const T0 = Date.UTC(2025, 0, 1);

describe(PlatformStore.name, () => {
  let sut: PlatformStore;
  let nextId = 0;

  beforeEach(() => {
    sut = new PlatformStore({ username: 'GuildKeeper' }, 100);
  });

  function dm(channelId: string, nonce: string | number | undefined, sentAt: number): DmRecord {
    const record: DmRecord = {
      recipientId: '300000000000000001',
      channelId,
      messageId: String(++nextId),
      content: 'hello',
      embeds: [],
      ...(nonce === undefined ? {} : { nonce }),
      sentAt: new Date(sentAt),
    };
    sut.recordDm(record);
    return record;
  }

  it("remembers a message's nonce in its channel for the nonce window only", () => {
    const sent = dm('10', 'restore-1', T0);
    expect(sut.recentDmWithNonce('10', 'restore-1', T0 + NONCE_WINDOW_MS - 1)).toBe(sent);
    expect(sut.recentDmWithNonce('10', 'restore-1', T0 + NONCE_WINDOW_MS)).toBeUndefined();
    expect(sut.recentDmWithNonce('11', 'restore-1', T0)).toBeUndefined();
    expect(sut.recentDmWithNonce('10', 'restore-2', T0)).toBeUndefined();
  });

  it('compares nonces as text, and ignores messages sent without one', () => {
    const sent = dm('10', 42, T0);
    dm('10', undefined, T0 + 1);
    expect(sut.recentDmWithNonce('10', '42', T0 + 2)).toBe(sent);
    expect(sut.dmLog.entries()).toHaveLength(2);
  });

  it('counts a reused nonce from its latest message, while older nonces expire', () => {
    dm('10', 'a', T0);
    dm('10', 'b', T0 + 60_000);
    const again = dm('10', 'a', T0 + NONCE_WINDOW_MS + 1);
    dm('10', 'c', T0 + NONCE_WINDOW_MS + 90_000);
    const now = T0 + NONCE_WINDOW_MS + 100_000;
    expect(sut.recentDmWithNonce('10', 'a', now)).toBe(again);
    expect(sut.recentDmWithNonce('10', 'b', now)).toBeUndefined();
  });

  it('forgets nonces on clear', () => {
    dm('10', 'a', T0);
    sut.clear();
    expect(sut.recentDmWithNonce('10', 'a', T0)).toBeUndefined();
  });
});
