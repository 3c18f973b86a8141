import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import { PLACEHOLDER_ANIMATED_GIF, PLACEHOLDER_PNG } from './expression-images';
import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildChange } from './guild-change';
import type { SeededGuild } from './guild-seed';
import { seedGuild } from './guild-seed';
import { PlatformStore } from './platform-store';
import { Router } from './router';
import { platformRoutes } from './routes';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const OWNER = '200000000000000001';
const HOOKS = '200000000000000002';
const MEMBER = '200000000000000003';
const TOKENS = { [HOOKS]: 'hooks-token', [MEMBER]: 'member-token' };

const dataUri = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;

/**
 * Webhooks (resources/webhook): the guild's list, one webhook, modifying (a move, an avatar) and
 * deleting, by permission; the caps; audit-log entries; avatars on the CDN.
 */
describe(`${FakeChatPlatform.name} webhooks`, () => {
  const sut = fakeForSuite(new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } }));
  let seeded: SeededGuild;

  beforeEach(() => {
    seeded = sut.seedGuild({
      name: 'Webhooks',
      owner: { id: OWNER, username: 'owner' },
      roles: [{ name: 'Hooks', permissions: P.ManageWebhooks | P.ViewChannel }],
      channels: [
        { name: 'general' },
        { name: 'news', type: 'announcement' },
        { name: 'staff', overwrites: [{ role: 'Hooks', deny: P.ManageWebhooks }] },
        { name: 'Lounge', type: 'voice' },
      ],
      members: [
        { username: 'hooks', id: HOOKS, roles: ['Hooks'] },
        { username: 'member', id: MEMBER },
      ],
      bot: { permissions: P.ManageWebhooks | P.ViewChannel },
    });
    for (const [id, token] of Object.entries(TOKENS)) sut.registerBotToken(token, id);
  });

  const tokenOf = (as?: string) => (as ? TOKENS[as as keyof typeof TOKENS] : sut.botToken);

  function call(method: string, path: string, body?: unknown, as?: string): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, body, { Authorization: `Bot ${tokenOf(as)}` });
  }

  async function create(channel = 'general', body: Record<string, unknown> = {}, as?: string) {
    const reply = await call(
      'POST',
      `/channels/${seeded.channels[channel]}/webhooks`,
      { name: 'Hook', ...body },
      as,
    );
    expect(reply.status).toBe(200);
    return reply.body as { id: string; token: string; avatar: string | null };
  }

  it('answers a webhook with its token, its url and its creating application', async () => {
    const webhook = await create();
    expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({
      status: 200,
      body: {
        id: webhook.id,
        type: 1,
        guild_id: seeded.guildId,
        channel_id: seeded.channels.general,
        name: 'Hook',
        token: webhook.token,
        url: `https://discord.com/api/webhooks/${webhook.id}/${webhook.token}`,
        application_id: sut.botUserId,
        user: { id: sut.botUserId },
      },
    });
  });

  it('lists the guild’s webhooks across its channels, for MANAGE_WEBHOOKS in the guild', async () => {
    const one = await create('general');
    const two = await create('news');
    const listed = await call('GET', `/guilds/${seeded.guildId}/webhooks`);
    expect((listed.body as unknown as { id: string }[]).map((webhook) => webhook.id)).toEqual([
      one.id,
      two.id,
    ]);
    expect(await call('GET', `/guilds/${seeded.guildId}/webhooks`, undefined, MEMBER)).toMatchObject({
      status: 403,
      body: { code: 50013 },
    });
  });

  it('lets the creating application read its webhook without MANAGE_WEBHOOKS, nobody else', async () => {
    sut.addBot(seeded.guildId, HOOKS, OWNER);
    const webhook = await create('general', {}, HOOKS);
    sut.mutate(seeded.guildId, (guild) => {
      guild.members.find((member) => member.user_id === HOOKS)!.roles = [];
    });
    expect(await call('GET', `/webhooks/${webhook.id}`, undefined, HOOKS)).toMatchObject({
      status: 200,
      body: { id: webhook.id, application_id: HOOKS },
    });
    expect((await call('GET', `/webhooks/${webhook.id}`, undefined, MEMBER)).status).toBe(403);
    expect((await call('PATCH', `/webhooks/${webhook.id}`, { name: 'x' }, HOOKS)).status).toBe(403);
  });

  it('needs MANAGE_WEBHOOKS in the webhook’s channel to modify or delete it, overwrites counted', async () => {
    const webhook = await create('staff');
    expect((await call('PATCH', `/webhooks/${webhook.id}`, { name: 'x' }, HOOKS)).status).toBe(403);
    expect((await call('DELETE', `/webhooks/${webhook.id}`, undefined, HOOKS)).status).toBe(403);
    expect((await call('DELETE', `/webhooks/${webhook.id}`)).status).toBe(204);
    expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({
      status: 404,
      body: { code: 10015 },
    });
  });

  it('moves a webhook within the guild, to a text channel it may manage webhooks in', async () => {
    const webhook = await create();
    const moved = await call('PATCH', `/webhooks/${webhook.id}`, { channel_id: seeded.channels.news });
    expect(moved.body).toMatchObject({ channel_id: seeded.channels.news, token: webhook.token });
    const voice = await call('PATCH', `/webhooks/${webhook.id}`, { channel_id: seeded.channels.Lounge });
    expect(voice).toMatchObject({ status: 400, body: { code: 50024 } });
    const staff = await call(
      'PATCH',
      `/webhooks/${webhook.id}`,
      { channel_id: seeded.channels.staff },
      HOOKS,
    );
    expect(staff.status).toBe(403);
    const elsewhere = sut.seedGuild({ name: 'Other', channels: [{ name: 'far' }] });
    const away = await call('PATCH', `/webhooks/${webhook.id}`, { channel_id: elsewhere.channels.far });
    expect(away).toMatchObject({ status: 404, body: { code: 10003 } });
  });

  it('stores an avatar and serves it from the CDN under its hash until it is replaced', async () => {
    const webhook = await create('general', { avatar: dataUri(PLACEHOLDER_PNG) });
    expect(webhook.avatar).toMatch(/^[0-9a-f]{32}$/);
    const avatar = (hash: string, extension = 'png') =>
      fetch(`${sut.cdnUrl}/avatars/${webhook.id}/${hash}.${extension}`);
    const served = await avatar(webhook.avatar!);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PLACEHOLDER_PNG);
    expect((await avatar(webhook.avatar!, 'gif')).status).toBe(415);
    const replaced = await call('PATCH', `/webhooks/${webhook.id}`, {
      avatar: dataUri(PLACEHOLDER_ANIMATED_GIF, 'image/gif'),
    });
    const hash = replaced.body.avatar as string;
    expect(hash).toMatch(/^a_[0-9a-f]{32}$/);
    expect((await avatar(webhook.avatar!)).status).toBe(404);
    expect((await avatar(hash, 'gif')).status).toBe(200);
    await call('PATCH', `/webhooks/${webhook.id}`, { avatar: null });
    expect((await avatar(hash, 'gif')).status).toBe(404);
    const invalid = await call('PATCH', `/webhooks/${webhook.id}`, { avatar: 'https://example.com/a.png' });
    expect(invalid).toMatchObject({
      status: 400,
      body: { errors: { avatar: { _errors: [{ code: 'IMAGE_INVALID' }] } } },
    });
  });

  it('allows 15 webhooks a channel (30007)', async () => {
    for (let index = 0; index < 15; index++) await create('general', { name: `hook ${index}` });
    const sixteenth = await call('POST', `/channels/${seeded.channels.general}/webhooks`, {
      name: 'one more',
    });
    expect(sixteenth).toMatchObject({ status: 400, body: { code: 30007 } });
    const other = await create('news');
    const full = await call('PATCH', `/webhooks/${other.id}`, { channel_id: seeded.channels.general });
    expect(full).toMatchObject({ status: 400, body: { code: 30007 } });
  });

  it('allows 1000 webhooks a guild (30058)', () => {
    const store = new PlatformStore({ username: 'bot' }, 100);
    const { guildId, channels } = seedGuild(store, {
      name: 'Full',
      channels: Array.from({ length: 67 }, (_, index) => ({ name: `c${index}` })),
    });
    const ids = Object.values(channels);
    for (let index = 0; index < 1000; index++) {
      const id = `${900000000000000000n + BigInt(index)}`;
      const channel_id = ids[Math.floor(index / 15)];
      store.webhooks.set(id, {
        id,
        type: 1,
        guild_id: guildId,
        channel_id,
        creator_id: store.bot.id,
        name: 'h',
        avatar: null,
        token: 't',
      });
    }
    const match = new Router(platformRoutes).match('POST', `/channels/${ids[66]}/webhooks`);
    if (typeof match !== 'object') throw new Error('no route');
    const caller = { kind: 'bot' as const, userId: store.bot.id };
    const request = { params: match.params, query: new URLSearchParams(), body: { name: 'h' }, caller };
    expect(() =>
      match.route.handle({ ...request, actorId: store.bot.id, auditLogReason: null }, store),
    ).toThrow('Maximum number of webhooks per guild reached (1000)');
  });

  it('writes WEBHOOK_CREATE, UPDATE and DELETE, the avatar as avatar_hash', async () => {
    const webhook = await create('general', { avatar: dataUri(PLACEHOLDER_PNG) });
    await call('PATCH', `/webhooks/${webhook.id}`, {
      name: 'Renamed',
      channel_id: seeded.channels.news,
      avatar: null,
    });
    await call('DELETE', `/webhooks/${webhook.id}`);
    const entries = sut
      .auditLog(seeded.guildId)
      .map(({ action_type, changes }) => ({ action_type, changes }));
    expect(entries).toEqual([
      {
        action_type: AuditLogEvent.WebhookCreate,
        changes: [
          { key: 'type', new_value: 1 },
          { key: 'name', new_value: 'Hook' },
          { key: 'avatar_hash', new_value: webhook.avatar },
          { key: 'channel_id', new_value: seeded.channels.general },
        ],
      },
      {
        action_type: AuditLogEvent.WebhookUpdate,
        changes: [
          { key: 'name', old_value: 'Hook', new_value: 'Renamed' },
          { key: 'avatar_hash', old_value: webhook.avatar },
          { key: 'channel_id', old_value: seeded.channels.general, new_value: seeded.channels.news },
        ],
      },
      {
        action_type: AuditLogEvent.WebhookDelete,
        changes: [
          { key: 'type', old_value: 1 },
          { key: 'name', old_value: 'Renamed' },
          { key: 'channel_id', old_value: seeded.channels.news },
        ],
      },
    ]);
  });

  it('announces a move to both channels, with one audit-log entry', () => {
    const store = new PlatformStore({ username: 'bot' }, 100);
    const { guildId, channels } = seedGuild(store, {
      name: 'Direct',
      channels: [{ name: 'a' }, { name: 'b' }],
    });
    const router = new Router(platformRoutes);
    const send = (method: string, path: string, body?: unknown) => {
      const match = router.match(method, path);
      if (typeof match !== 'object') throw new Error(`no route for ${method} ${path}`);
      const caller = { kind: 'bot' as const, userId: store.bot.id };
      const request = { params: match.params, query: new URLSearchParams(), body, caller };
      return match.route.handle({ ...request, actorId: store.bot.id, auditLogReason: null }, store);
    };
    const id = (send('POST', `/channels/${channels.a}/webhooks`, { name: 'h' }).body as { id: string }).id;
    const changes = send('PATCH', `/webhooks/${id}`, { channel_id: channels.b }).changes as GuildChange[];
    expect(
      changes.map(
        (change) => change.kind === 'entry' && [change.entry?.action_type ?? null, change.dispatch?.data],
      ),
    ).toEqual([
      [AuditLogEvent.WebhookUpdate, { guild_id: guildId, channel_id: channels.b }],
      [null, { guild_id: guildId, channel_id: channels.a }],
    ]);
  });
});
