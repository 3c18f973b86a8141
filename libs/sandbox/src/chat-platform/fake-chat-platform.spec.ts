import { ChatPlatformClient } from '@lib/chat-platform';
import { demoGuildSpec } from './demo-guild';
import { FakeChatPlatform } from './fake-chat-platform';
import type { SeededGuild } from './guild-seed';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

/** Direct messages and their nonces, on loopback, driven by the service's own client. */
describe(FakeChatPlatform.name, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let client: ChatPlatformClient;
  let seeded: SeededGuild;

  beforeAll(() => {
    client = new ChatPlatformClient({ apiBaseUrl: `${sut.url}/api`, botToken: sut.botToken });
  });
  beforeEach(() => {
    seeded = sut.seedGuild(demoGuildSpec());
  });

  function post(path: string, body: object): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, 'POST', body, { Authorization: `Bot ${sut.botToken}` });
  }

  async function dmChannel(userId: string): Promise<string> {
    const opened = await post('/users/@me/channels', { recipient_id: userId });
    expect(opened.status).toBe(200);
    return opened.body.id as string;
  }

  describe('direct message nonces', () => {
    it('answers a message sent again with the same nonce with the first one, and posts it once', async () => {
      const message = { content: 'Your restore is done', nonce: 'restore-0196c3a0' };
      const first = await client.sendDirectMessage(seeded.members.alice, message);
      const retried = await client.sendDirectMessage(seeded.members.alice, message);
      expect(retried).toEqual(first);
      expect(sut.dmLog()).toEqual([
        expect.objectContaining({
          recipientId: seeded.members.alice,
          messageId: first.id,
          content: 'Your restore is done',
          nonce: 'restore-0196c3a0',
        }),
      ]);
      const posts = sut.requestLog().filter((r) => r.route === '/channels/:channel_id/messages');
      expect(posts.map((r) => r.status)).toEqual([200, 200]);
    });

    it('keeps nonces apart per channel, and posts every message without one', async () => {
      const toAlice = await client.sendDirectMessage(seeded.members.alice, { content: 'a', nonce: 'n-1' });
      const toBob = await client.sendDirectMessage(seeded.members.bob, { content: 'b', nonce: 'n-1' });
      await client.sendDirectMessage(seeded.members.alice, { content: 'plain' });
      await client.sendDirectMessage(seeded.members.alice, { content: 'plain' });
      expect(toBob.id).not.toBe(toAlice.id);
      expect(sut.dmLog().map((dm) => [dm.recipientId, dm.content])).toEqual([
        [seeded.members.alice, 'a'],
        [seeded.members.bob, 'b'],
        [seeded.members.alice, 'plain'],
        [seeded.members.alice, 'plain'],
      ]);
    });

    it('echoes the nonce as sent, and enforces it only when asked', async () => {
      const channel = await dmChannel(seeded.members.alice);
      const plain = await post(`/channels/${channel}/messages`, { content: 'no nonce' });
      expect(plain.status).toBe(200);
      expect(plain.body).not.toHaveProperty('nonce');

      const first = await post(`/channels/${channel}/messages`, { content: 'x', nonce: 42 });
      const unenforced = await post(`/channels/${channel}/messages`, { content: 'x', nonce: 42 });
      expect([first.body.nonce, unenforced.body.nonce]).toEqual([42, 42]);
      expect(unenforced.body.id).not.toBe(first.body.id);

      // 42 and "42" are one nonce; the answer is the latest message that carried it.
      const enforced = await post(`/channels/${channel}/messages`, {
        content: 'x',
        nonce: '42',
        enforce_nonce: true,
      });
      expect(enforced).toMatchObject({ status: 200, body: { id: unenforced.body.id, nonce: 42 } });
      expect(sut.dmLog()).toHaveLength(3);
    });

    it('refuses a nonce over 25 characters or of another type, and a non-boolean enforce_nonce', async () => {
      const channel = await dmChannel(seeded.members.alice);
      for (const [field, extra] of [
        ['nonce', { nonce: 'x'.repeat(26) }],
        ['nonce', { nonce: 1.5 }],
        ['nonce', { nonce: { id: 1 } }],
        ['enforce_nonce', { nonce: 'n', enforce_nonce: 'yes' }],
      ] as const) {
        const refused = await post(`/channels/${channel}/messages`, { content: 'x', ...extra });
        expect([JSON.stringify(extra), refused.status, refused.body.code]).toEqual([
          JSON.stringify(extra),
          400,
          50035,
        ]);
        expect(refused.body.errors).toHaveProperty(field);
      }
      expect(
        (await post(`/channels/${channel}/messages`, { content: 'x', nonce: 'x'.repeat(25) })).status,
      ).toBe(200);
      expect(sut.dmLog()).toHaveLength(1);
    });
  });
});
