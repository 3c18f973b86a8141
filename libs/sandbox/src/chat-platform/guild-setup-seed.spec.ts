import { FakeChatPlatform } from './fake-chat-platform';
import { PLACEHOLDER_PNG } from './expression-images';
import { sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

/** A guild spec's `setup`: AutoMod rules, webhooks, welcome screen and onboarding, read back through the API. */
describe(`${FakeChatPlatform.name} guild setup seeding`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());

  const get = async (path: string) =>
    (await sendJson(`${sut.url}/api/v10${path}`, 'GET', undefined, { Authorization: `Bot ${sut.botToken}` }))
      .body;

  it('seeds every part by name, as the routes then answer them', async () => {
    const hash = '0123456789abcdef0123456789abcdef';
    const seeded = sut.seedGuild({
      name: 'Seeded setup',
      features: ['COMMUNITY'],
      roles: [{ name: 'Trusted' }],
      channels: [{ name: 'general' }, { name: 'alerts' }],
      emojis: [{ name: 'wave' }],
      setup: {
        autoModRules: [
          { name: 'Words', actions: [{ type: 2, channel: 'alerts' }], exemptRoles: ['Trusted'] },
          { name: 'Profiles', trigger_type: 6 },
        ],
        webhooks: [
          {
            name: 'Feed',
            channel: 'general',
            avatar: { hash, image: { bytes: PLACEHOLDER_PNG, contentType: 'image/png' } },
          },
        ],
        welcomeScreen: { channels: [{ channel: 'general', description: 'Hello', emoji: 'wave' }] },
        onboarding: {
          defaultChannels: ['general'],
          prompts: [{ title: 'Why?', options: [{ title: 'Fun', roles: ['Trusted'] }] }],
        },
      },
    });
    const { guildId, channels, roles, emojis, setup } = seeded;
    expect(await get(`/guilds/${guildId}/auto-moderation/rules`)).toEqual([
      expect.objectContaining({
        id: setup.autoModRules.Words,
        trigger_type: 1,
        enabled: true,
        actions: [{ type: 2, metadata: { channel_id: channels.alerts } }],
        exempt_roles: [roles.Trusted],
      }),
      expect.objectContaining({
        id: setup.autoModRules.Profiles,
        event_type: 2,
        actions: [{ type: 4, metadata: {} }],
      }),
    ]);
    expect(await get(`/webhooks/${setup.webhooks.Feed}`)).toMatchObject({
      channel_id: channels.general,
      avatar: hash,
    });
    const avatar = await fetch(`${sut.cdnUrl}/avatars/${setup.webhooks.Feed}/${hash}.png`);
    expect(Buffer.from(await avatar.arrayBuffer())).toEqual(PLACEHOLDER_PNG);
    expect(await get(`/guilds/${guildId}/welcome-screen`)).toEqual({
      description: null,
      welcome_channels: [
        { channel_id: channels.general, description: 'Hello', emoji_id: emojis.wave, emoji_name: 'wave' },
      ],
    });
    expect((await get(`/guilds/${guildId}`)).features).toContain('WELCOME_SCREEN_ENABLED');
    expect(await get(`/guilds/${guildId}/onboarding`)).toMatchObject({
      default_channel_ids: [channels.general],
      enabled: false,
      prompts: [{ title: 'Why?', options: [{ title: 'Fun', role_ids: [roles.Trusted] }] }],
    });
    expect(sut.auditLog(guildId)).toEqual([]);
  });

  it('refuses a welcome screen for a guild that is not a Community', () => {
    expect(() =>
      sut.seedGuild({
        name: 'Plain',
        channels: [{ name: 'general' }],
        setup: { welcomeScreen: { channels: [{ channel: 'general', description: 'Hi' }] } },
      }),
    ).toThrow('COMMUNITY');
  });
});
