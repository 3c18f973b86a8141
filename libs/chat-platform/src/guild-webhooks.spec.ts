import type { APIWebhook } from 'discord-api-types/v10';
import { ChatPlatformError } from './chat-platform-error';
import { toCreatedWebhook, toPlatformWebhook } from './guild-webhooks';

const answer = (fields: Partial<APIWebhook> = {}): APIWebhook => ({
  id: '101',
  type: 1,
  guild_id: '1',
  channel_id: '2',
  name: 'Deploys',
  avatar: null,
  application_id: null,
  token: 'secret-token',
  ...fields,
});

describe(toCreatedWebhook.name, () => {
  it('takes the answer’s url, or makes the address from the token as the platform executes webhooks', () => {
    const url = 'https://discord.com/api/webhooks/101/secret-token';
    expect(toCreatedWebhook(answer({ url }), 'https://example.test/api').address).toBe(url);
    expect(toCreatedWebhook(answer(), 'https://discord.com/api').address).toBe(url);
  });

  it('fails as the platform’s fault when an answer has neither', () => {
    expect(() => toCreatedWebhook(answer({ token: undefined }), 'https://discord.com/api')).toThrow(
      ChatPlatformError,
    );
  });
});

describe(toPlatformWebhook.name, () => {
  it('keeps what a bot can set, never the token', () => {
    expect(toPlatformWebhook(answer({ url: 'https://discord.com/api/webhooks/101/secret-token' }))).toEqual({
      id: '101',
      type: 1,
      channel_id: '2',
      name: 'Deploys',
      avatar: null,
    });
  });
});
