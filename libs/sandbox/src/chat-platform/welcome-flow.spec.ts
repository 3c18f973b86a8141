import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildSpec, SeededGuild } from './guild-seed';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const OWNER = '200000000000000001';
const MANAGER = '200000000000000002';
const MEMBER = '200000000000000003';
const TOKENS = { [MANAGER]: 'manager-token', [MEMBER]: 'member-token' };

const CHANNELS = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];

/**
 * The welcome screen and onboarding (resources/guild): Community guilds only, permissions, the
 * documented limits and onboarding requirements, audit-log entries.
 */
describe(`${FakeChatPlatform.name} welcome screen and onboarding`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  function seed(spec: Partial<GuildSpec> = {}): SeededGuild {
    seeded = sut.seedGuild({
      name: 'Welcome',
      owner: { id: OWNER, username: 'owner' },
      features: ['COMMUNITY'],
      roles: [{ name: 'Manager', permissions: P.ManageGuild }, { name: 'Gamer' }],
      channels: [...CHANNELS.map((name) => ({ name })), { name: 'Lounge', type: 'voice' }],
      members: [
        { username: 'manager', id: MANAGER, roles: ['Manager'] },
        { username: 'member', id: MEMBER },
      ],
      bot: { permissions: P.ManageGuild | P.ManageRoles },
      ...spec,
    });
    for (const [id, token] of Object.entries(TOKENS)) sut.registerBotToken(token, id);
    return seeded;
  }

  beforeEach(() => seed());

  const tokenOf = (as?: string) => (as ? TOKENS[as as keyof typeof TOKENS] : sut.botToken);

  function call(method: string, path: string, body?: unknown, as?: string): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, body, { Authorization: `Bot ${tokenOf(as)}` });
  }

  const screen = () => `/guilds/${seeded.guildId}/welcome-screen`;
  const onboarding = () => `/guilds/${seeded.guildId}/onboarding`;

  describe('welcome screen', () => {
    it('has none until it is set, then answers it; enabling it is a GUILD_UPDATE', async () => {
      expect(await call('GET', screen())).toMatchObject({ status: 404, body: { code: 10069 } });
      const channel = { channel_id: seeded.channels.c1, description: 'Start here', emoji_name: '👋' };
      const set = await call('PATCH', screen(), {
        enabled: true,
        description: 'Hi',
        welcome_channels: [channel],
      });
      const expected = { description: 'Hi', welcome_channels: [{ ...channel, emoji_id: null }] };
      expect(set).toEqual({ status: 200, body: expected });
      expect((await call('GET', screen(), undefined, MEMBER)).body).toEqual(expected);
      expect(sut.guild(seeded.guildId).features).toContain('WELCOME_SCREEN_ENABLED');
      expect(sut.auditLog(seeded.guildId)).toEqual([
        expect.objectContaining({
          action_type: AuditLogEvent.GuildUpdate,
          changes: [
            { key: 'features', old_value: ['COMMUNITY'], new_value: ['COMMUNITY', 'WELCOME_SCREEN_ENABLED'] },
          ],
        }),
      ]);
      // A description alone leaves the channels as they are.
      expect((await call('PATCH', screen(), { description: null })).body).toEqual({
        ...expected,
        description: null,
      });
      // Null clears the list.
      expect((await call('PATCH', screen(), { welcome_channels: null })).body.welcome_channels).toEqual([]);
    });

    it('needs MANAGE_GUILD to modify, and to read one that is not enabled', async () => {
      await call('PATCH', screen(), { welcome_channels: [] });
      expect((await call('GET', screen(), undefined, MEMBER)).status).toBe(403);
      expect((await call('GET', screen(), undefined, MANAGER)).status).toBe(200);
      expect((await call('PATCH', screen(), { enabled: true }, MEMBER)).status).toBe(403);
    });

    it('has none on a guild that is not a Community', async () => {
      seed({ features: [] });
      expect(await call('PATCH', screen(), { description: 'x' })).toMatchObject({
        status: 404,
        body: { code: 10069 },
      });
    });

    it.each([
      [
        'over 5 channels',
        () => ({
          welcome_channels: CHANNELS.slice(0, 6).map((name) => ({
            channel_id: seeded.channels[name],
            description: 'x',
          })),
        }),
        'welcome_channels',
        'BASE_TYPE_MAX_LENGTH',
      ],
      [
        'a channel of another guild',
        () => ({ welcome_channels: [{ channel_id: '1', description: 'x' }] }),
        'welcome_channels.0.channel_id',
        'CHANNEL_TYPE_INVALID',
      ],
      [
        'a description over 50 characters',
        () => ({ welcome_channels: [{ channel_id: seeded.channels.c1, description: 'x'.repeat(51) }] }),
        'welcome_channels.0.description',
        'BASE_TYPE_BAD_LENGTH',
      ],
      [
        'an emoji the guild does not have',
        () => ({ welcome_channels: [{ channel_id: seeded.channels.c1, description: 'x', emoji_id: '1' }] }),
        'welcome_channels.0.emoji_id',
        'EMOJI_INVALID',
      ],
      [
        'a screen description over 140 characters',
        () => ({ description: 'x'.repeat(141) }),
        'description',
        'BASE_TYPE_BAD_LENGTH',
      ],
    ])('refuses %s', async (_what, body, path, code) => {
      const reply = await call('PATCH', screen(), body());
      expect(reply).toMatchObject({ status: 400, body: { code: 50035 } });
      let node = reply.body.errors as Record<string, unknown> | undefined;
      for (const key of path.split('.')) node = node?.[key] as Record<string, unknown> | undefined;
      expect((node?._errors as { code: string }[])[0].code).toBe(code);
    });
  });

  describe('onboarding', () => {
    const defaults = () => CHANNELS.map((name) => seeded.channels[name]);
    const prompt = (fields: Record<string, unknown> = {}) => ({
      id: '1100000000000000001',
      title: 'Why are you here?',
      options: [{ title: 'Games', role_ids: [seeded.roles.Gamer], emoji_name: '🎮' }],
      ...fields,
    });

    it('answers an empty, disabled onboarding for a guild that never set one up', async () => {
      expect((await call('GET', onboarding(), undefined, MEMBER)).body).toEqual({
        guild_id: seeded.guildId,
        prompts: [],
        default_channel_ids: [],
        enabled: false,
        mode: 0,
      });
    });

    it('sets prompts and options, keeping the ids sent and giving new ones to options without', async () => {
      const put = await call('PUT', onboarding(), {
        prompts: [
          prompt({
            options: [
              { id: '1100000000000000002', title: 'Help', channel_ids: [seeded.channels.c2] },
              { title: 'Games', emoji_name: '🎮' },
            ],
          }),
        ],
        default_channel_ids: defaults(),
        enabled: true,
      });
      expect(put).toMatchObject({
        status: 200,
        body: {
          enabled: true,
          default_channel_ids: defaults(),
          prompts: [
            {
              id: '1100000000000000001',
              type: 0,
              single_select: false,
              required: false,
              in_onboarding: true,
              options: [
                {
                  id: '1100000000000000002',
                  title: 'Help',
                  description: '',
                  channel_ids: [seeded.channels.c2],
                  role_ids: [],
                },
                { id: expect.stringMatching(/^\d+$/), emoji: { id: null, name: '🎮', animated: false } },
              ],
            },
          ],
        },
      });
      expect((await call('GET', onboarding())).body).toEqual(put.body);
    });

    it('enables only with 7 default channels, 5 of which @everyone may chat in (350000, 350001)', async () => {
      const six = await call('PUT', onboarding(), {
        default_channel_ids: defaults().slice(0, 6),
        enabled: true,
      });
      expect(six).toMatchObject({ status: 400, body: { code: 350000 } });
      sut.mutate(seeded.guildId, (guild) => {
        for (const channel of guild.channels.slice(0, 3)) {
          channel.permission_overwrites.push({
            id: guild.id,
            type: 0,
            allow: '0',
            deny: String(P.SendMessages),
          });
        }
      });
      const muted = await call('PUT', onboarding(), { default_channel_ids: defaults(), enabled: true });
      expect(muted).toMatchObject({ status: 400, body: { code: 350000 } });
      seed();
      expect(
        (await call('PUT', onboarding(), { default_channel_ids: defaults(), enabled: true })).status,
      ).toBe(200);
      const below = await call('PUT', onboarding(), { default_channel_ids: defaults().slice(1) });
      expect(below).toMatchObject({ status: 400, body: { code: 350001 } });
      // Advanced mode counts the channels of the onboarding's questions too.
      const advanced = await call('PUT', onboarding(), {
        mode: 1,
        default_channel_ids: defaults().slice(1),
        prompts: [prompt({ options: [{ title: 'One', channel_ids: [seeded.channels.c1] }] })],
      });
      expect(advanced.status).toBe(200);
    });

    it('needs MANAGE_GUILD and MANAGE_ROLES, and a Community guild', async () => {
      expect((await call('PUT', onboarding(), { enabled: false }, MANAGER)).status).toBe(403);
      seed({ features: [] });
      expect(await call('PUT', onboarding(), { enabled: false })).toMatchObject({
        status: 403,
        body: { code: 50001 },
      });
    });

    it('refuses roles and channels the guild does not have, and prompts without options', async () => {
      const role = await call('PUT', onboarding(), {
        prompts: [prompt({ options: [{ title: 'x', role_ids: ['1'] }] })],
      });
      const channel = await call('PUT', onboarding(), { default_channel_ids: ['1'] });
      const empty = await call('PUT', onboarding(), { prompts: [prompt({ options: [] })] });
      expect([role.body.code, channel.body.code, empty.body.code]).toEqual([10011, 10003, 50035]);
    });

    it('writes ONBOARDING_CREATE, then UPDATE, and an entry per prompt added, changed or removed', async () => {
      await call('PUT', onboarding(), { prompts: [prompt()], default_channel_ids: defaults() });
      await call('PUT', onboarding(), { prompts: [prompt({ title: 'Why?' })], mode: 1 });
      // Null clears the prompts.
      await call('PUT', onboarding(), { prompts: null });
      expect(sut.auditLog(seeded.guildId).map((entry) => [entry.action_type, entry.target_id])).toEqual([
        [AuditLogEvent.OnboardingCreate, seeded.guildId],
        [AuditLogEvent.OnboardingPromptCreate, '1100000000000000001'],
        [AuditLogEvent.OnboardingUpdate, seeded.guildId],
        [AuditLogEvent.OnboardingPromptUpdate, '1100000000000000001'],
        [AuditLogEvent.OnboardingPromptDelete, '1100000000000000001'],
      ]);
    });
  });
});
