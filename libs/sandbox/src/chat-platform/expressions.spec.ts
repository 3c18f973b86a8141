import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import { PLACEHOLDER_ANIMATED_GIF, PLACEHOLDER_PNG } from './expression-images';
import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildChange } from './guild-change';
import { type GuildSpec, type SeededGuild, seedGuild } from './guild-seed';
import { PlatformStore } from './platform-store';
import { Router } from './router';
import { platformRoutes } from './routes';
import { type JsonReply, readJson, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const OWNER = '200000000000000001';
const CREATOR = '200000000000000002';
const MANAGER = '200000000000000003';
const MEMBER = '200000000000000004';
const TOKENS = { [CREATOR]: 'creator-token', [MANAGER]: 'manager-token', [MEMBER]: 'member-token' };

/** One frame of the placeholder GIF: a GIF that does not move. */
const STATIC_GIF = Buffer.concat([PLACEHOLDER_ANIMATED_GIF.subarray(0, 42), Buffer.from([0x3b])]);
/** The placeholder PNG with an animation control chunk after its header: an APNG. */
const APNG = Buffer.concat([
  PLACEHOLDER_PNG.subarray(0, 33),
  Buffer.from([0, 0, 0, 8, ...Buffer.from('acTL'), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]),
  PLACEHOLDER_PNG.subarray(33),
]);
const JPEG = Buffer.from([
  0xff,
  0xd8,
  0xff,
  0xe0,
  0,
  16,
  ...Buffer.from('JFIF'),
  0,
  1,
  1,
  0,
  0,
  1,
  0,
  1,
  0,
  0,
]);
const LOTTIE = Buffer.from(JSON.stringify({ v: '5.5.2', fr: 30, ip: 0, op: 60, w: 320, h: 320, layers: [] }));

const dataUri = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;
/** A PNG signature padded to the size: the platform tells a file by its signature. */
const pngOfSize = (size: number) =>
  Buffer.concat([PLACEHOLDER_PNG, Buffer.alloc(size - PLACEHOLDER_PNG.length)]);

/**
 * Custom emojis and stickers (resources/emoji, resources/sticker): uploads with their limits and
 * errors, edits and deletes by permission, audit-log entries, and the images back from the CDN.
 */
describe(`${FakeChatPlatform.name} emojis and stickers`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  function seed(spec: Partial<GuildSpec> = {}): SeededGuild {
    seeded = sut.seedGuild({
      name: 'Expressions',
      owner: { id: OWNER, username: 'owner' },
      roles: [
        { name: 'Creator', permissions: P.CreateGuildExpressions },
        { name: 'Manager', permissions: P.ManageGuildExpressions },
      ],
      members: [
        { username: 'creator', id: CREATOR, roles: ['Creator'] },
        { username: 'manager', id: MANAGER, roles: ['Manager'] },
        { username: 'member', id: MEMBER, roles: [] },
      ],
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

  const emojis = (guildId = seeded.guildId) => `/guilds/${guildId}/emojis`;
  const stickers = (guildId = seeded.guildId) => `/guilds/${guildId}/stickers`;

  function createEmoji(fields: Record<string, unknown>, as?: string): Promise<JsonReply> {
    return call('POST', emojis(), { name: 'party', image: dataUri(PLACEHOLDER_PNG), ...fields }, as);
  }

  async function createSticker(
    fields: Record<string, string>,
    file: { bytes: Buffer; name: string; type: string } | null = {
      bytes: PLACEHOLDER_PNG,
      name: 'wave.png',
      type: 'image/png',
    },
    as?: string,
    guildId = seeded.guildId,
  ): Promise<JsonReply> {
    const form = new FormData();
    for (const [name, value] of Object.entries({ name: 'wave', tags: 'wave', ...fields }))
      form.append(name, value);
    if (file) form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
    const response = await fetch(`${sut.url}/api/v10${stickers(guildId)}`, {
      method: 'POST',
      headers: { Authorization: `Bot ${tokenOf(as)}` },
      body: form,
    });
    return readJson(response);
  }

  async function cdn(path: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
    const response = await fetch(`${sut.cdnUrl}${path}`);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      bytes: Buffer.from(await response.arrayBuffer()),
    };
  }

  /** The field's first error in an Invalid Form Body. */
  function fieldError(reply: JsonReply, field: string) {
    expect(reply).toMatchObject({ status: 400, body: { code: 50035 } });
    const errors = reply.body.errors as Record<string, { _errors: { code: string }[] }>;
    return errors[field]?._errors[0]?.code;
  }

  const entries = (type: AuditLogEvent) =>
    sut.auditLog(seeded.guildId).filter((entry) => entry.action_type === type);

  describe('emojis', () => {
    it('uploads one from image data, answers it with its uploader, and serves the exact bytes from the CDN', async () => {
      const created = await createEmoji({ roles: [seeded.roles.Creator] }, CREATOR);
      expect(created).toMatchObject({
        status: 201,
        body: {
          name: 'party',
          roles: [seeded.roles.Creator],
          animated: false,
          require_colons: true,
          managed: false,
          available: true,
          user: { id: CREATOR, username: 'creator' },
        },
      });
      const id = created.body.id as string;
      expect((await call('GET', `${emojis()}/${id}`)).body).toMatchObject({ id, name: 'party' });
      expect(await cdn(`/emojis/${id}.png`)).toEqual({
        status: 200,
        type: 'image/png',
        bytes: PLACEHOLDER_PNG,
      });
      expect(entries(AuditLogEvent.EmojiCreate)).toEqual([
        expect.objectContaining({
          user_id: CREATOR,
          target_id: id,
          changes: [
            { key: 'name', new_value: 'party' },
            { key: 'roles', new_value: [seeded.roles.Creator] },
          ],
        }),
      ]);
    });

    it('tells an animated GIF from a still one by its frames', async () => {
      const moving = await createEmoji({
        name: 'moving',
        image: dataUri(PLACEHOLDER_ANIMATED_GIF, 'image/gif'),
      });
      const still = await createEmoji({ name: 'still', image: dataUri(STATIC_GIF, 'image/gif') });
      expect([moving.body.animated, still.body.animated]).toEqual([true, false]);
      expect(await cdn(`/emojis/${moving.body.id as string}.gif`)).toMatchObject({
        status: 200,
        type: 'image/gif',
        bytes: PLACEHOLDER_ANIMATED_GIF,
      });
      // GIF is offered only for an emoji that moves.
      expect((await cdn(`/emojis/${still.body.id as string}.gif`)).status).toBe(415);
    });

    it('shows the uploader only to those who may create or manage expressions', async () => {
      sut.addEmoji(seeded.guildId, 'seeded');
      const [asMember] = (await call('GET', emojis(), undefined, MEMBER)).body as unknown as object[];
      expect(asMember).not.toHaveProperty('user');
      const [asManager] = (await call('GET', emojis(), undefined, MANAGER)).body as unknown as object[];
      expect(asManager).toMatchObject({ user: { id: OWNER } });
    });

    it.each([
      ['a name too short', { name: 'x' }, 'name', 'BASE_TYPE_BAD_LENGTH'],
      ['a name with other characters', { name: 'no-dash' }, 'name', 'STRING_TYPE_REGEX'],
      ['no image', { image: undefined }, 'image', 'BASE_TYPE_REQUIRED'],
      ['what is not image data', { image: 'https://example.com/a.png' }, 'image', 'IMAGE_INVALID'],
      ['bytes that are not the type named', { image: dataUri(JPEG, 'image/png') }, 'image', 'IMAGE_INVALID'],
      [
        'an image over 256 KiB',
        { image: dataUri(pngOfSize(256 * 1024 + 1)) },
        'image',
        'BINARY_TYPE_MAX_SIZE',
      ],
    ])('refuses %s with an Invalid Form Body', async (_case, fields, field, code) => {
      expect(fieldError(await createEmoji(fields), field)).toBe(code);
    });

    it('takes an image of exactly 256 KiB, and a JPEG', async () => {
      expect((await createEmoji({ image: dataUri(pngOfSize(256 * 1024)) })).status).toBe(201);
      expect((await createEmoji({ name: 'photo', image: dataUri(JPEG, 'image/jpeg') })).status).toBe(201);
    });

    it.each([
      [0, 50],
      [1, 100],
      [2, 150],
      [3, 250],
    ])(
      'at boost level %i has %i slots each for still and animated emojis (30008 when full)',
      async (tier, slots) => {
        const { guildId } = seed({ premium_tier: tier as 0 | 1 | 2 | 3 });
        for (let index = 0; index < slots; index++) sut.addEmoji(guildId, `still_${index}`);
        expect(await createEmoji({})).toMatchObject({
          status: 400,
          body: { code: 30008, message: 'Maximum number of emojis reached' },
        });
        const animated = await createEmoji({ image: dataUri(PLACEHOLDER_ANIMATED_GIF, 'image/gif') });
        expect(animated).toMatchObject({ status: 201, body: { animated: true } });
      },
    );

    it('needs CREATE_GUILD_EXPRESSIONS to upload, and MANAGE_GUILD_EXPRESSIONS for what others uploaded', async () => {
      expect(await createEmoji({}, MEMBER)).toMatchObject({ status: 403, body: { code: 50013 } });
      expect(await createEmoji({}, MANAGER)).toMatchObject({ status: 403, body: { code: 50013 } });
      const own = (await createEmoji({ name: 'own' }, CREATOR)).body.id as string;
      const owners = sut.addEmoji(seeded.guildId, 'owners');
      expect((await call('PATCH', `${emojis()}/${own}`, { name: 'mine' }, CREATOR)).status).toBe(200);
      expect(await call('PATCH', `${emojis()}/${owners}`, { name: 'taken' }, CREATOR)).toMatchObject({
        status: 403,
        body: { code: 50013 },
      });
      expect((await call('DELETE', `${emojis()}/${owners}`, undefined, CREATOR)).status).toBe(403);
      expect((await call('DELETE', `${emojis()}/${owners}`, undefined, MANAGER)).status).toBe(204);
      expect((await call('DELETE', `${emojis()}/${own}`, undefined, CREATOR)).status).toBe(204);
      expect((await cdn(`/emojis/${own}.png`)).status).toBe(404);
    });

    it('renames and restricts one with an EMOJI_UPDATE entry of what changed', async () => {
      const id = (await createEmoji({})).body.id as string;
      const edited = await call('PATCH', `${emojis()}/${id}`, {
        name: 'renamed',
        roles: [seeded.roles.Manager],
      });
      expect(edited).toMatchObject({ status: 200, body: { name: 'renamed', roles: [seeded.roles.Manager] } });
      expect((await call('PATCH', `${emojis()}/${id}`, { roles: null })).body).toMatchObject({ roles: [] });
      expect(fieldError(await call('PATCH', `${emojis()}/${id}`, { name: null }), 'name')).toBe(
        'BASE_TYPE_REQUIRED',
      );
      expect(await call('PATCH', `${emojis()}/${id}`, { roles: ['1'] })).toMatchObject({
        status: 404,
        body: { code: 10011 },
      });
      expect(entries(AuditLogEvent.EmojiUpdate).map((entry) => entry.changes)).toEqual([
        [
          { key: 'name', old_value: 'party', new_value: 'renamed' },
          { key: 'roles', old_value: [], new_value: [seeded.roles.Manager] },
        ],
        [{ key: 'roles', old_value: [seeded.roles.Manager], new_value: [] }],
      ]);
      expect(await call('GET', `${emojis()}/1`)).toMatchObject({ status: 404, body: { code: 10014 } });
    });
  });

  describe('stickers', () => {
    it('uploads a PNG from a multipart form, and serves the exact file from the CDN', async () => {
      const created = await createSticker({ description: 'a wave', tags: 'wave,hello' }, undefined, CREATOR);
      expect(created).toMatchObject({
        status: 201,
        body: {
          name: 'wave',
          description: 'a wave',
          tags: 'wave,hello',
          type: 2,
          format_type: 1,
          available: true,
          guild_id: seeded.guildId,
          user: { id: CREATOR },
        },
      });
      const id = created.body.id as string;
      expect((await call('GET', `${stickers()}/${id}`)).body).toMatchObject({ id, name: 'wave' });
      expect(await cdn(`/stickers/${id}.png`)).toEqual({
        status: 200,
        type: 'image/png',
        bytes: PLACEHOLDER_PNG,
      });
      expect((await cdn(`/stickers/${id}.gif`)).status).toBe(415);
      expect(entries(AuditLogEvent.StickerCreate)).toEqual([
        expect.objectContaining({
          user_id: CREATOR,
          target_id: id,
          changes: expect.arrayContaining([
            { key: 'name', new_value: 'wave' },
            { key: 'format_type', new_value: 1 },
          ]),
        }),
      ]);
    });

    it('tells APNG and GIF files by their bytes', async () => {
      const apng = await createSticker({}, { bytes: APNG, name: 'a.png', type: 'image/png' });
      const gif = await createSticker(
        {},
        { bytes: PLACEHOLDER_ANIMATED_GIF, name: 'a.gif', type: 'image/gif' },
      );
      expect([apng.body.format_type, gif.body.format_type]).toEqual([2, 4]);
      expect((await cdn(`/stickers/${gif.body.id as string}.gif`)).bytes).toEqual(PLACEHOLDER_ANIMATED_GIF);
    });

    it('takes a Lottie file only on a verified or partnered guild, and only a Lottie animation', async () => {
      const lottie = { bytes: LOTTIE, name: 'a.json', type: 'application/json' };
      expect(fieldError(await createSticker({}, lottie), 'file')).toBe('STICKER_LOTTIE_NOT_ALLOWED');
      const { guildId } = seed({ name: 'Verified', features: ['VERIFIED'] });
      const created = await createSticker({}, lottie, undefined, guildId);
      expect(created).toMatchObject({ status: 201, body: { format_type: 3 } });
      expect(await cdn(`/stickers/${created.body.id as string}.json`)).toEqual({
        status: 200,
        type: 'application/json',
        bytes: LOTTIE,
      });
      const notLottie = { ...lottie, bytes: Buffer.from('{"hello": true}') };
      expect(await createSticker({}, notLottie, undefined, guildId)).toMatchObject({
        status: 400,
        body: { code: 170001 },
      });
    });

    it.each([
      ['a name too short', { name: 'w' }, undefined, 'name', 'BASE_TYPE_BAD_LENGTH'],
      ['no tags', { tags: '' }, undefined, 'tags', 'BASE_TYPE_BAD_LENGTH'],
      [
        'a description of one character',
        { description: 'x' },
        undefined,
        'description',
        'BASE_TYPE_BAD_LENGTH',
      ],
      ['no file', {}, null, 'file', 'BASE_TYPE_REQUIRED'],
      [
        'a file over 512 KiB',
        {},
        { bytes: pngOfSize(512 * 1024 + 1), name: 'big.png', type: 'image/png' },
        'file',
        'BINARY_TYPE_MAX_SIZE',
      ],
      ['a JPEG', {}, { bytes: JPEG, name: 'a.jpg', type: 'image/jpeg' }, 'file', 'STICKER_INVALID_FORMAT'],
    ])('refuses %s with an Invalid Form Body', async (_case, fields, file, field, code) => {
      expect(fieldError(await createSticker(fields, file), field)).toBe(code);
    });

    it('refuses a JSON body: the file comes only in a multipart form', async () => {
      const reply = await call('POST', stickers(), {
        name: 'wave',
        tags: 'wave',
        file: dataUri(PLACEHOLDER_PNG),
      });
      expect(fieldError(reply, 'name')).toBe('BASE_TYPE_REQUIRED');
    });

    it.each([
      [0, 5],
      [1, 15],
      [2, 30],
      [3, 60],
    ])('at boost level %i has %i slots (30039 when full)', async (tier, slots) => {
      const { guildId } = seed({ premium_tier: tier as 0 | 1 | 2 | 3 });
      for (let index = 1; index < slots; index++) sut.addSticker(guildId, `sticker ${index}`);
      expect((await createSticker({}, undefined, undefined, guildId)).status).toBe(201);
      expect(await createSticker({}, undefined, undefined, guildId)).toMatchObject({
        status: 400,
        body: { code: 30039, message: 'Maximum number of stickers reached' },
      });
    });

    it('edits one with a STICKER_UPDATE entry, by its uploader or a manager', async () => {
      const id = (await createSticker({}, undefined, CREATOR)).body.id as string;
      const edited = await call(
        'PATCH',
        `${stickers()}/${id}`,
        { name: 'wave2', description: 'hi there' },
        CREATOR,
      );
      expect(edited).toMatchObject({
        status: 200,
        body: { name: 'wave2', description: 'hi there', tags: 'wave' },
      });
      expect(fieldError(await call('PATCH', `${stickers()}/${id}`, { tags: 'x' }), 'tags')).toBe(
        'BASE_TYPE_BAD_LENGTH',
      );
      expect(fieldError(await call('PATCH', `${stickers()}/${id}`, { tags: null }), 'tags')).toBe(
        'BASE_TYPE_REQUIRED',
      );
      const owners = sut.addSticker(seeded.guildId, 'owners');
      expect((await call('PATCH', `${stickers()}/${owners}`, { name: 'taken' }, CREATOR)).status).toBe(403);
      expect((await call('DELETE', `${stickers()}/${owners}`, undefined, MANAGER)).status).toBe(204);
      expect(entries(AuditLogEvent.StickerUpdate)).toEqual([
        expect.objectContaining({
          user_id: CREATOR,
          target_id: id,
          changes: [
            { key: 'name', old_value: 'wave', new_value: 'wave2' },
            { key: 'description', new_value: 'hi there' },
          ],
        }),
      ]);
      expect(await call('GET', `${stickers()}/1`)).toMatchObject({ status: 404, body: { code: 10060 } });
    });
  });

  describe('the CDN', () => {
    it('serves images without authentication, and nothing else', async () => {
      const emoji = sut.addEmoji(seeded.guildId, 'seeded');
      const sticker = sut.addSticker(seeded.guildId, 'seeded');
      expect((await cdn(`/emojis/${emoji}.webp`)).bytes).toEqual(PLACEHOLDER_PNG);
      expect((await cdn(`/emojis/${emoji}.bmp`)).status).toBe(415);
      expect((await cdn(`/emojis/${sticker}.png`)).status).toBe(404);
      expect((await cdn(`/stickers/${emoji}.png`)).status).toBe(404);
      expect((await cdn(`/emojis/1.png`)).status).toBe(404);
      const head = await fetch(`${sut.cdnUrl}/emojis/${emoji}.png`, { method: 'HEAD' });
      expect([head.status, head.headers.get('content-length')]).toEqual([
        200,
        String(PLACEHOLDER_PNG.length),
      ]);
      expect((await fetch(`${sut.cdnUrl}/emojis/${emoji}.png`, { method: 'DELETE' })).status).toBe(405);
    });
  });

  describe('the guild object and the gateway', () => {
    it('seeds a guild’s emojis and stickers from its spec, as its owner’s uploads', async () => {
      const image = { bytes: JPEG, contentType: 'image/jpeg' };
      const {
        guildId,
        emojis: emojiIds,
        stickers: stickerIds,
        roles,
      } = seed({
        name: 'Seeded',
        emojis: [
          { name: 'vip', roles: ['Creator'] },
          { name: 'dance', animated: true },
          { name: 'photo', image },
        ],
        stickers: [{ name: 'hello', description: 'hi there' }],
      });
      const listed = (await call('GET', emojis(guildId))).body as unknown as Record<string, unknown>[];
      expect(listed).toEqual([
        expect.objectContaining({
          id: emojiIds.vip,
          roles: [roles.Creator],
          animated: false,
          user: expect.objectContaining({ id: OWNER }),
        }),
        expect.objectContaining({ id: emojiIds.dance, animated: true }),
        expect.objectContaining({ id: emojiIds.photo }),
      ]);
      expect(await cdn(`/emojis/${emojiIds.photo}.png`)).toEqual({
        status: 200,
        type: 'image/jpeg',
        bytes: JPEG,
      });
      expect((await call('GET', `${stickers(guildId)}/${stickerIds.hello}`)).body).toMatchObject({
        name: 'hello',
        description: 'hi there',
        tags: 'hello',
      });
    });

    it('lists the guild’s emojis and stickers in the guild object', async () => {
      const emoji = sut.addEmoji(seeded.guildId, 'seeded');
      const sticker = sut.addSticker(seeded.guildId, 'seeded');
      expect((await call('GET', `/guilds/${seeded.guildId}`)).body).toMatchObject({
        emojis: [{ id: emoji, name: 'seeded' }],
        stickers: [{ id: sticker, name: 'seeded' }],
      });
    });

    it('announces each change with the guild’s whole new list, without uploaders', () => {
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
      const created = send('POST', `/guilds/${guildId}/emojis`, {
        name: 'one',
        image: dataUri(PLACEHOLDER_PNG),
      });
      const id = (created.body as { id: string }).id;
      const listed = {
        guild_id: guildId,
        emojis: [expect.not.objectContaining({ user: expect.anything() })],
      };
      expect(dispatched(created.changes)).toEqual([
        expect.objectContaining({ event: 'GUILD_EMOJIS_UPDATE', data: listed }),
      ]);
      expect(dispatched(send('PATCH', `/guilds/${guildId}/emojis/${id}`, { name: 'two' }).changes)).toEqual([
        expect.objectContaining({
          data: { guild_id: guildId, emojis: [expect.objectContaining({ name: 'two' })] },
        }),
      ]);
      // An edit that changes nothing is neither logged nor announced.
      expect(send('PATCH', `/guilds/${guildId}/emojis/${id}`, { name: 'two' }).changes).toBeUndefined();
      expect(dispatched(send('DELETE', `/guilds/${guildId}/emojis/${id}`).changes)).toEqual([
        expect.objectContaining({ event: 'GUILD_EMOJIS_UPDATE', data: { guild_id: guildId, emojis: [] } }),
      ]);
      const sticker = '300000000000000001';
      store.expressions.stickers(guildId).push({
        id: sticker,
        user_id: null,
        name: 'x',
        description: null,
        tags: 'x',
        type: 2,
        format_type: 1,
        available: true,
        guild_id: guildId,
      });
      expect(dispatched(send('DELETE', `/guilds/${guildId}/stickers/${sticker}`).changes)).toEqual([
        expect.objectContaining({
          event: 'GUILD_STICKERS_UPDATE',
          data: { guild_id: guildId, stickers: [] },
        }),
      ]);
    });
  });
});
