import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildChange } from './guild-change';
import { type GuildSpec, type SeededGuild, seedGuild } from './guild-seed';
import { PlatformStore } from './platform-store';
import { Router } from './router';
import { platformRoutes } from './routes';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const OWNER = '200000000000000001';
const MANAGER = '200000000000000002';
const MEMBER = '200000000000000003';
const TOKENS = { [MANAGER]: 'manager-token', [MEMBER]: 'member-token' };

/**
 * AutoMod rules (resources/auto-moderation): MANAGE_GUILD for every route, the caps per trigger
 * type, the trigger metadata and action limits, exempt roles and channels, audit-log entries and
 * gateway events.
 */
describe(`${FakeChatPlatform.name} AutoMod rules`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  function seed(spec: Partial<GuildSpec> = {}): SeededGuild {
    seeded = sut.seedGuild({
      name: 'AutoMod',
      owner: { id: OWNER, username: 'owner' },
      roles: [{ name: 'Manager', permissions: P.ManageGuild }, { name: 'Trusted' }],
      channels: [{ name: 'general' }, { name: 'alerts' }, { name: 'Lounge', type: 'voice' }],
      members: [
        { username: 'manager', id: MANAGER, roles: ['Manager'] },
        { username: 'member', id: MEMBER },
      ],
      bot: { permissions: P.ManageGuild | P.ModerateMembers | P.ViewChannel },
      ...spec,
    });
    for (const [id, token] of Object.entries(TOKENS)) sut.registerBotToken(token, id);
    return seeded;
  }

  beforeEach(() => seed());

  const tokenOf = (as?: string) => (as ? TOKENS[as as keyof typeof TOKENS] : sut.botToken);
  const rules = () => `/guilds/${seeded.guildId}/auto-moderation/rules`;

  function call(method: string, path: string, body?: unknown, as?: string): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, body, { Authorization: `Bot ${tokenOf(as)}` });
  }

  const keywordRule = (fields: Record<string, unknown> = {}) => ({
    name: 'Keywords',
    event_type: 1,
    trigger_type: 1,
    trigger_metadata: { keyword_filter: ['spam'] },
    actions: [{ type: 1 }],
    ...fields,
  });

  /** The first error of the field (a dotted path) in an Invalid Form Body. */
  function fieldError(reply: JsonReply, path: string) {
    expect(reply).toMatchObject({ status: 400, body: { code: 50035 } });
    let node = reply.body.errors as Record<string, unknown> | undefined;
    for (const key of path.split('.')) node = node?.[key] as Record<string, unknown> | undefined;
    return (node?._errors as { code: string }[] | undefined)?.[0]?.code;
  }

  it('creates a rule with every field, answers 200 with it, and lists and reads it back', async () => {
    const created = await call(
      'POST',
      rules(),
      keywordRule({
        trigger_metadata: { keyword_filter: ['cat*'], regex_patterns: ['(b|c)at'], allow_list: ['catalog'] },
        actions: [
          { type: 1, metadata: { custom_message: 'No.' } },
          { type: 2, metadata: { channel_id: seeded.channels.alerts } },
          { type: 3, metadata: { duration_seconds: 60 } },
        ],
        enabled: true,
        exempt_roles: [seeded.roles.Trusted],
        exempt_channels: [seeded.channels.general],
      }),
    );
    const rule = {
      guild_id: seeded.guildId,
      name: 'Keywords',
      creator_id: sut.botUserId,
      event_type: 1,
      trigger_type: 1,
      trigger_metadata: { keyword_filter: ['cat*'], regex_patterns: ['(b|c)at'], allow_list: ['catalog'] },
      actions: [
        { type: 1, metadata: { custom_message: 'No.' } },
        { type: 2, metadata: { channel_id: seeded.channels.alerts } },
        { type: 3, metadata: { duration_seconds: 60 } },
      ],
      enabled: true,
      exempt_roles: [seeded.roles.Trusted],
      exempt_channels: [seeded.channels.general],
    };
    expect(created).toEqual({ status: 200, body: { id: expect.any(String), ...rule } });
    const id = created.body.id as string;
    expect((await call('GET', rules())).body).toEqual([{ id, ...rule }]);
    expect((await call('GET', `${rules()}/${id}`)).body).toEqual({ id, ...rule });
  });

  it('answers each trigger type’s metadata with its own fields only, defaults filled in', async () => {
    const spam = await call('POST', rules(), {
      name: 'Spam',
      event_type: 1,
      trigger_type: 3,
      actions: [{ type: 1 }],
    });
    const presets = await call('POST', rules(), {
      name: 'Presets',
      event_type: 1,
      trigger_type: 4,
      trigger_metadata: { presets: [2] },
      actions: [{ type: 1 }],
    });
    const mentions = await call('POST', rules(), {
      name: 'Mentions',
      event_type: 1,
      trigger_type: 5,
      trigger_metadata: { mention_total_limit: 50 },
      actions: [{ type: 1 }],
    });
    const profile = await call('POST', rules(), {
      name: 'Profiles',
      event_type: 2,
      trigger_type: 6,
      trigger_metadata: { regex_patterns: ['^admin'] },
      actions: [{ type: 4 }],
    });
    expect([spam, presets, mentions, profile].map((reply) => reply.body.trigger_metadata)).toEqual([
      {},
      { allow_list: [], presets: [2] },
      { mention_total_limit: 50, mention_raid_protection_enabled: false },
      { keyword_filter: [], regex_patterns: ['^admin'], allow_list: [] },
    ]);
    expect(profile.body).toMatchObject({
      enabled: false,
      exempt_roles: [],
      actions: [{ type: 4, metadata: {} }],
    });
  });

  it('allows 6 KEYWORD rules and one of each other trigger type', async () => {
    for (let index = 0; index < 6; index++) {
      expect((await call('POST', rules(), keywordRule({ name: `k${index}` }))).status).toBe(200);
    }
    expect(fieldError(await call('POST', rules(), keywordRule()), 'trigger_type')).toBe(
      'AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED',
    );
    const spam = { name: 'Spam', event_type: 1, trigger_type: 3, actions: [{ type: 1 }] };
    expect((await call('POST', rules(), spam)).status).toBe(200);
    expect(fieldError(await call('POST', rules(), spam), 'trigger_type')).toBe(
      'AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED',
    );
  });

  it.each([
    [
      'a keyword over 60 characters',
      { trigger_metadata: { keyword_filter: ['x'.repeat(61)] } },
      'trigger_metadata.keyword_filter.0',
      'BASE_TYPE_BAD_LENGTH',
    ],
    [
      'over 1000 keywords',
      { trigger_metadata: { keyword_filter: Array(1001).fill('x') } },
      'trigger_metadata.keyword_filter',
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'over 10 regex patterns',
      { trigger_metadata: { regex_patterns: Array(11).fill('x') } },
      'trigger_metadata.regex_patterns',
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'a regex pattern over 260 characters',
      { trigger_metadata: { regex_patterns: ['x'.repeat(261)] } },
      'trigger_metadata.regex_patterns.0',
      'BASE_TYPE_BAD_LENGTH',
    ],
    [
      'over 100 allowed words on a KEYWORD rule',
      { trigger_metadata: { keyword_filter: ['x'], allow_list: Array(101).fill('y') } },
      'trigger_metadata.allow_list',
      'BASE_TYPE_MAX_LENGTH',
    ],
    ['no keyword nor pattern', { trigger_metadata: {} }, 'trigger_metadata', 'BASE_TYPE_REQUIRED'],
    [
      'a field of another trigger type',
      { trigger_metadata: { keyword_filter: ['x'], presets: [1] } },
      'trigger_metadata.presets',
      'AUTO_MODERATION_INVALID_TRIGGER_METADATA',
    ],
    [
      'a custom message over 150 characters',
      { actions: [{ type: 1, metadata: { custom_message: 'x'.repeat(151) } }] },
      'actions.0.metadata.custom_message',
      'BASE_TYPE_BAD_LENGTH',
    ],
    [
      'a timeout over four weeks',
      { actions: [{ type: 3, metadata: { duration_seconds: 2_419_201 } }] },
      'actions.0.metadata.duration_seconds',
      'NUMBER_TYPE_MAX',
    ],
    [
      'an alert to a voice channel',
      { actions: [{ type: 2, metadata: { channel_id: 'Lounge' } }] },
      'actions.0.metadata.channel_id',
      'CHANNEL_TYPE_INVALID',
    ],
    ['no action', { actions: [] }, 'actions', 'BASE_TYPE_BAD_LENGTH'],
    [
      'BLOCK_MEMBER_INTERACTION on a KEYWORD rule',
      { actions: [{ type: 4 }] },
      'actions.0.type',
      'AUTO_MODERATION_INVALID_ACTION',
    ],
    [
      'the MEMBER_UPDATE event on a KEYWORD rule',
      { event_type: 2 },
      'event_type',
      'AUTO_MODERATION_INVALID_EVENT_TYPE',
    ],
    ['over 20 exempt roles', { exempt_roles: Array(21).fill('1') }, 'exempt_roles', 'BASE_TYPE_MAX_LENGTH'],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, 'name', 'BASE_TYPE_BAD_LENGTH'],
  ])('refuses %s', async (_what, fields, path, code) => {
    const body = keywordRule(fields);
    const actions = body.actions as { metadata?: { channel_id?: string } }[];
    for (const action of actions) {
      if (action.metadata?.channel_id === 'Lounge') action.metadata.channel_id = seeded.channels.Lounge;
    }
    expect(fieldError(await call('POST', rules(), body), path)).toBe(code);
    expect((await call('GET', rules())).body).toEqual([]);
  });

  it('refuses a MENTION_SPAM limit over 50 and a TIMEOUT on a KEYWORD_PRESET rule', async () => {
    const mentions = { name: 'M', event_type: 1, trigger_type: 5, actions: [{ type: 1 }] };
    const over = await call('POST', rules(), { ...mentions, trigger_metadata: { mention_total_limit: 51 } });
    expect(fieldError(over, 'trigger_metadata.mention_total_limit')).toBe('NUMBER_TYPE_MAX');
    const timeout = await call('POST', rules(), {
      name: 'P',
      event_type: 1,
      trigger_type: 4,
      trigger_metadata: { presets: [1] },
      actions: [{ type: 3, metadata: { duration_seconds: 60 } }],
    });
    expect(fieldError(timeout, 'actions.0.type')).toBe('AUTO_MODERATION_INVALID_ACTION');
  });

  it('refuses exempt roles and channels the guild does not have', async () => {
    const role = await call('POST', rules(), keywordRule({ exempt_roles: ['1'] }));
    const channel = await call('POST', rules(), keywordRule({ exempt_channels: ['1'] }));
    expect([role.body.code, channel.body.code]).toEqual([10011, 10003]);
  });

  it('needs MANAGE_GUILD for every route, and MODERATE_MEMBERS for a TIMEOUT action', async () => {
    const id = ((await call('POST', rules(), keywordRule())).body as { id: string }).id;
    const asMember = [
      call('GET', rules(), undefined, MEMBER),
      call('GET', `${rules()}/${id}`, undefined, MEMBER),
      call('POST', rules(), keywordRule(), MEMBER),
      call('PATCH', `${rules()}/${id}`, { name: 'x' }, MEMBER),
      call('DELETE', `${rules()}/${id}`, undefined, MEMBER),
    ];
    for (const reply of await Promise.all(asMember))
      expect(reply).toMatchObject({ status: 403, body: { code: 50013 } });
    const timeout = keywordRule({ actions: [{ type: 3, metadata: { duration_seconds: 60 } }] });
    expect(await call('POST', rules(), timeout, MANAGER)).toMatchObject({
      status: 403,
      body: { code: 50013 },
    });
  });

  it('modifies what a body sets, never the trigger type, and answers 404 for a rule it does not have', async () => {
    const id = ((await call('POST', rules(), keywordRule())).body as { id: string }).id;
    const modified = await call('PATCH', `${rules()}/${id}`, {
      name: 'Renamed',
      trigger_type: 1,
      trigger_metadata: { keyword_filter: ['scam'] },
    });
    expect(modified.body).toMatchObject({
      name: 'Renamed',
      trigger_metadata: { keyword_filter: ['scam'] },
      actions: [{ type: 1 }],
    });
    expect(fieldError(await call('PATCH', `${rules()}/${id}`, { trigger_type: 5 }), 'trigger_type')).toBe(
      'AUTO_MODERATION_TRIGGER_TYPE_IMMUTABLE',
    );
    expect((await call('DELETE', `${rules()}/${id}`)).status).toBe(204);
    expect(await call('GET', `${rules()}/${id}`)).toMatchObject({ status: 404, body: { code: 0 } });
  });

  it('writes AUTO_MODERATION_RULE_CREATE, UPDATE and DELETE with the fields they changed', async () => {
    const id = ((await call('POST', rules(), keywordRule())).body as { id: string }).id;
    await call('PATCH', `${rules()}/${id}`, { enabled: true });
    await call('PATCH', `${rules()}/${id}`, { enabled: true });
    await call('DELETE', `${rules()}/${id}`);
    const entries = sut
      .auditLog(seeded.guildId)
      .filter((entry) => entry.target_id === id)
      .map(({ action_type, changes }) => ({ action_type, changes }));
    expect(entries).toEqual([
      {
        action_type: AuditLogEvent.AutoModerationRuleCreate,
        changes: [
          { key: 'name', new_value: 'Keywords' },
          { key: 'event_type', new_value: 1 },
          { key: 'trigger_type', new_value: 1 },
          {
            key: 'trigger_metadata',
            new_value: { keyword_filter: ['spam'], regex_patterns: [], allow_list: [] },
          },
          { key: 'actions', new_value: [{ type: 1, metadata: {} }] },
          { key: 'enabled', new_value: false },
          { key: 'exempt_roles', new_value: [] },
          { key: 'exempt_channels', new_value: [] },
        ],
      },
      {
        action_type: AuditLogEvent.AutoModerationRuleUpdate,
        changes: [{ key: 'enabled', old_value: false, new_value: true }],
      },
      { action_type: AuditLogEvent.AutoModerationRuleDelete, changes: expect.any(Array) },
    ]);
  });

  it('announces each change to sessions with AUTO_MODERATION_CONFIGURATION whose bot holds MANAGE_GUILD', () => {
    const store = new PlatformStore({ username: 'bot' }, 100);
    const { guildId } = seedGuild(store, { name: 'Direct' });
    const router = new Router(platformRoutes);
    const send = (method: string, path: string, body?: unknown) => {
      const match = router.match(method, path);
      if (typeof match !== 'object') throw new Error(`no route for ${method} ${path}`);
      const caller = { kind: 'bot' as const, userId: store.bot.id };
      const request = { params: match.params, query: new URLSearchParams(), body, caller };
      return match.route.handle({ ...request, actorId: store.bot.id, auditLogReason: null }, store);
    };
    const dispatched = (changes: GuildChange[] | undefined) =>
      changes?.map((change) => (change.kind === 'entry' ? change.dispatch : undefined));
    const created = send('POST', `/guilds/${guildId}/auto-moderation/rules`, keywordRule());
    const id = (created.body as { id: string }).id;
    const announced = (event: string, name: string): unknown =>
      expect.objectContaining({
        event,
        data: expect.objectContaining({ id, name }),
        intent: 1 << 20,
        permission: P.ManageGuild,
      });
    expect(dispatched(created.changes)).toEqual([announced('AUTO_MODERATION_RULE_CREATE', 'Keywords')]);
    const path = `/guilds/${guildId}/auto-moderation/rules/${id}`;
    expect(dispatched(send('PATCH', path, { name: 'Two' }).changes)).toEqual([
      announced('AUTO_MODERATION_RULE_UPDATE', 'Two'),
    ]);
    expect(dispatched(send('DELETE', path).changes)).toEqual([
      announced('AUTO_MODERATION_RULE_DELETE', 'Two'),
    ]);
  });
});
