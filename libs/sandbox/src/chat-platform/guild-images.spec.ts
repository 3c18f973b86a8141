import { AuditLogEvent } from 'discord-api-types/v10';
import { createHash } from 'node:crypto';
import { PLACEHOLDER_ANIMATED_GIF, PLACEHOLDER_PNG } from './expression-images';
import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildSpec, SeededGuild } from './guild-seed';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

/** One frame of the placeholder GIF: a GIF that does not move. */
const STATIC_GIF = Buffer.concat([PLACEHOLDER_ANIMATED_GIF.subarray(0, 42), Buffer.from([0x3b])]);
/** Another PNG than the placeholder (trailing bytes after IEND change its hash, not its kind). */
const OTHER_PNG = Buffer.concat([PLACEHOLDER_PNG, Buffer.from('other')]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(8)]);

const dataUri = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

type FieldErrors = Record<string, { _errors?: { code: string }[] }>;
const errorCode = (reply: JsonReply, field: string) =>
  (reply.body.errors as FieldErrors | undefined)?.[field]?._errors?.[0]?.code;

/**
 * A guild's icon, banner, splash and discovery splash (resources/guild, Modify Guild) and its roles'
 * icons (topics/permissions): image data checked and gated by the guild's features, hashes of the
 * bytes on the guild and role objects, the bytes back from the CDN at Discord's paths, and the
 * audit log's `*_hash` change keys.
 */
describe(`${FakeChatPlatform.name} guild images and role icons`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  function seed(spec: Partial<GuildSpec> = {}): SeededGuild {
    seeded = sut.seedGuild({ name: 'Images', roles: [{ name: 'Member' }], ...spec });
    return seeded;
  }

  beforeEach(() => seed());

  function call(method: string, path: string, body?: unknown): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, body, { Authorization: `Bot ${sut.botToken}` });
  }

  const patchGuild = (body: Record<string, unknown>) => call('PATCH', `/guilds/${seeded.guildId}`, body);
  const cdn = (path: string) => fetch(`${sut.cdnUrl}/${path}`);

  describe('the guild icon', () => {
    it('keeps an uploaded icon under a hash of its bytes and serves them from the CDN', async () => {
      const reply = await patchGuild({ icon: dataUri(PLACEHOLDER_PNG) });

      expect(reply.status).toBe(200);
      expect(reply.body.icon).toBe(md5(PLACEHOLDER_PNG));
      expect(sut.guild(seeded.guildId).icon).toBe(md5(PLACEHOLDER_PNG));
      for (const extension of ['png', 'jpg', 'webp']) {
        const image = await cdn(`icons/${seeded.guildId}/${md5(PLACEHOLDER_PNG)}.${extension}?size=64`);
        expect(image.status).toBe(200);
        expect(image.headers.get('content-type')).toBe('image/png');
        expect(Buffer.from(await image.arrayBuffer())).toEqual(PLACEHOLDER_PNG);
      }
    });

    it('serves GIF only for an animated hash, and only the sizes the docs allow', async () => {
      await patchGuild({ icon: dataUri(PLACEHOLDER_PNG) });
      const path = `icons/${seeded.guildId}/${md5(PLACEHOLDER_PNG)}`;

      expect((await cdn(`${path}.gif`)).status).toBe(415);
      expect((await cdn(`${path}.png?size=100`)).status).toBe(400);
      expect((await cdn(`${path}.png?size=8192`)).status).toBe(400);
      expect((await cdn(`${path}.png?size=4096`)).status).toBe(200);
    });

    it('stops serving a replaced or removed icon', async () => {
      await patchGuild({ icon: dataUri(PLACEHOLDER_PNG) });
      await patchGuild({ icon: dataUri(OTHER_PNG) });

      expect((await cdn(`icons/${seeded.guildId}/${md5(PLACEHOLDER_PNG)}.png`)).status).toBe(404);
      expect((await cdn(`icons/${seeded.guildId}/${md5(OTHER_PNG)}.png`)).status).toBe(200);
      const removed = await patchGuild({ icon: null });
      expect(removed.body.icon).toBeNull();
      expect((await cdn(`icons/${seeded.guildId}/${md5(OTHER_PNG)}.png`)).status).toBe(404);
    });

    it('takes a still GIF on any guild, a moving one only with ANIMATED_ICON (an a_ hash)', async () => {
      expect((await patchGuild({ icon: dataUri(STATIC_GIF, 'image/gif') })).status).toBe(200);
      const refused = await patchGuild({ icon: dataUri(PLACEHOLDER_ANIMATED_GIF, 'image/gif') });
      expect(refused.status).toBe(400);
      expect(errorCode(refused, 'icon')).toBe('GUILD_FEATURE_REQUIRED');

      seed({ features: ['ANIMATED_ICON'] });
      const animated = await patchGuild({ icon: dataUri(PLACEHOLDER_ANIMATED_GIF, 'image/gif') });
      expect(animated.body.icon).toBe(`a_${md5(PLACEHOLDER_ANIMATED_GIF)}`);
      const gif = await cdn(`icons/${seeded.guildId}/a_${md5(PLACEHOLDER_ANIMATED_GIF)}.gif`);
      expect(gif.headers.get('content-type')).toBe('image/gif');
    });

    it('refuses what is not PNG, JPEG or GIF image data: a hash sent back, WebP, a mislabelled type', async () => {
      for (const icon of [
        md5(PLACEHOLDER_PNG),
        dataUri(WEBP, 'image/webp'),
        dataUri(PLACEHOLDER_PNG, 'image/gif'),
      ]) {
        const reply = await patchGuild({ icon });
        expect(reply.status).toBe(400);
        expect(reply.body.code).toBe(50035);
        expect(errorCode(reply, 'icon')).toBe('IMAGE_INVALID');
      }
      expect(sut.guild(seeded.guildId).icon).toBeNull();
    });
  });

  describe('banner, splash and discovery splash', () => {
    it.each([
      ['banner', 'BANNER'],
      ['splash', 'INVITE_SPLASH'],
      ['discovery_splash', 'DISCOVERABLE'],
    ])('sets %s only on a guild with %s', async (field, feature) => {
      const refused = await patchGuild({ [field]: dataUri(PLACEHOLDER_PNG) });
      expect(refused.status).toBe(400);
      expect(errorCode(refused, field)).toBe('GUILD_FEATURE_REQUIRED');
      expect((await call('GET', `/guilds/${seeded.guildId}`)).body[field]).toBeNull();

      seed({ features: [feature] });
      const reply = await patchGuild({ [field]: dataUri(PLACEHOLDER_PNG) });
      expect(reply.status).toBe(200);
      expect(reply.body[field]).toBe(md5(PLACEHOLDER_PNG));
      const folder = { banner: 'banners', splash: 'splashes', discovery_splash: 'discovery-splashes' }[field];
      expect((await cdn(`${folder}/${seeded.guildId}/${md5(PLACEHOLDER_PNG)}.webp`)).status).toBe(200);
    });

    it('removes an image without the feature, as null', async () => {
      seed({ images: { banner: PLACEHOLDER_PNG } });
      expect((await patchGuild({ banner: null })).body.banner).toBeNull();
    });

    it('takes a GIF banner only with ANIMATED_BANNER, and never a GIF splash', async () => {
      seed({ features: ['BANNER', 'INVITE_SPLASH'] });
      const gif = dataUri(PLACEHOLDER_ANIMATED_GIF, 'image/gif');
      expect(errorCode(await patchGuild({ banner: gif }), 'banner')).toBe('GUILD_FEATURE_REQUIRED');
      expect(errorCode(await patchGuild({ splash: gif }), 'splash')).toBe('IMAGE_INVALID');

      seed({ features: ['BANNER', 'ANIMATED_BANNER'] });
      expect((await patchGuild({ banner: gif })).body.banner).toBe(`a_${md5(PLACEHOLDER_ANIMATED_GIF)}`);
    });

    it('serves a splash as PNG, JPEG or WebP, not GIF', async () => {
      seed({ images: { splash: PLACEHOLDER_PNG } });
      const path = `splashes/${seeded.guildId}/${md5(PLACEHOLDER_PNG)}`;
      expect((await cdn(`${path}.jpeg`)).status).toBe(200);
      expect((await cdn(`${path}.gif`)).status).toBe(415);
      expect((await cdn(`${path}.avif`)).status).toBe(415);
    });
  });

  it('seeds a guild with its images as bytes, reported and served at their hashes', async () => {
    seed({ features: ['BANNER'], images: { icon: PLACEHOLDER_PNG, banner: OTHER_PNG } });
    const guild = (await call('GET', `/guilds/${seeded.guildId}`)).body;

    expect(guild).toMatchObject({ icon: md5(PLACEHOLDER_PNG), banner: md5(OTHER_PNG), splash: null });
    const banner = await cdn(`banners/${seeded.guildId}/${md5(OTHER_PNG)}.png`);
    expect(Buffer.from(await banner.arrayBuffer())).toEqual(OTHER_PNG);
  });

  it('records image changes in GUILD_UPDATE under the *_hash keys', async () => {
    seed({ features: ['BANNER'], images: { icon: PLACEHOLDER_PNG } });
    await patchGuild({ icon: dataUri(OTHER_PNG), banner: dataUri(PLACEHOLDER_PNG) });

    const [entry] = sut.auditLog(seeded.guildId).filter((e) => e.action_type === AuditLogEvent.GuildUpdate);
    expect(entry.changes).toEqual(
      expect.arrayContaining([
        { key: 'icon_hash', old_value: md5(PLACEHOLDER_PNG), new_value: md5(OTHER_PNG) },
        { key: 'banner_hash', new_value: md5(PLACEHOLDER_PNG) },
      ]),
    );
    expect(entry.changes?.map((change) => change.key)).not.toContain('icon');
  });

  describe('role icons', () => {
    const roles = () => `/guilds/${seeded.guildId}/roles`;

    it('keeps a role icon on a ROLE_ICONS guild and serves it at role-icons/', async () => {
      seed({ features: ['ROLE_ICONS'] });
      const role = await call('POST', roles(), {
        name: 'Iconic',
        icon: dataUri(PLACEHOLDER_PNG),
        unicode_emoji: '⭐',
      });

      expect(role.status).toBe(200);
      expect(role.body).toMatchObject({ icon: md5(PLACEHOLDER_PNG), unicode_emoji: '⭐' });
      const image = await cdn(`role-icons/${role.body.id as string}/${md5(PLACEHOLDER_PNG)}.png`);
      expect(Buffer.from(await image.arrayBuffer())).toEqual(PLACEHOLDER_PNG);
      expect((await cdn(`role-icons/${role.body.id as string}/${md5(PLACEHOLDER_PNG)}.gif`)).status).toBe(
        415,
      );
    });

    it('refuses an icon or a unicode emoji on a guild without ROLE_ICONS, but takes null', async () => {
      const icon = await call('POST', roles(), { name: 'Iconic', icon: dataUri(PLACEHOLDER_PNG) });
      const emoji = await call('POST', roles(), { name: 'Starred', unicode_emoji: '⭐' });
      const none = await call('POST', roles(), { name: 'Plain', icon: null, unicode_emoji: null });

      expect([icon.status, emoji.status, none.status]).toEqual([400, 400, 200]);
      expect(errorCode(icon, 'icon')).toBe('GUILD_FEATURE_REQUIRED');
      expect(errorCode(emoji, 'unicode_emoji')).toBe('GUILD_FEATURE_REQUIRED');
    });

    it('refuses a role icon over 256 KiB, and a GIF', async () => {
      seed({ features: ['ROLE_ICONS'] });
      const big = Buffer.concat([PLACEHOLDER_PNG, Buffer.alloc(256 * 1024)]);
      const tooBig = await call('POST', roles(), { name: 'Big', icon: dataUri(big) });
      const gif = await call('POST', roles(), { name: 'Gif', icon: dataUri(STATIC_GIF, 'image/gif') });

      expect(errorCode(tooBig, 'icon')).toBe('BINARY_TYPE_MAX_SIZE');
      expect(errorCode(gif, 'icon')).toBe('IMAGE_INVALID');
    });

    it('records an icon change as icon_hash, and forgets the image with the role', async () => {
      seed({ features: ['ROLE_ICONS'], roles: [{ name: 'Member', icon: PLACEHOLDER_PNG }] });
      const roleId = seeded.roles.Member;
      await call('PATCH', `${roles()}/${roleId}`, { icon: dataUri(OTHER_PNG) });

      const update = sut.auditLog(seeded.guildId).find((e) => e.action_type === AuditLogEvent.RoleUpdate);
      expect(update?.changes).toEqual([
        { key: 'icon_hash', old_value: md5(PLACEHOLDER_PNG), new_value: md5(OTHER_PNG) },
      ]);
      expect((await cdn(`role-icons/${roleId}/${md5(OTHER_PNG)}.png`)).status).toBe(200);
      await call('DELETE', `${roles()}/${roleId}`);
      expect((await cdn(`role-icons/${roleId}/${md5(OTHER_PNG)}.png`)).status).toBe(404);
    });
  });
});
