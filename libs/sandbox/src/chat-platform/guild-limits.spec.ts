import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildSpec, SeededGuild } from './guild-seed';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const HOLOGRAPHIC = { primary_color: 11127295, secondary_color: 16759788, tertiary_color: 16761760 };

/**
 * Limits the platform sets by guild (resources/channel "Channel Object" and "Modify Channel",
 * topics/permissions "Role Colors Object"): the fake answers them as Discord does, 400 50035
 * Invalid Form Body with the field's error, so the product meets them in tests.
 */
describe('the fake platform’s guild-dependent limits', () => {
  const sut = fakeForSuite(new FakeChatPlatform());

  function seed(spec: Partial<GuildSpec> = {}): SeededGuild {
    return sut.seedGuild({
      name: 'Limits',
      categories: [{ name: 'Voice', channels: [{ name: 'lounge', type: 'voice', bitrate: 64000 }] }],
      channels: [{ name: 'general', topic: 'hello' }],
      roles: [{ name: 'Plain', color: 0x3498db }],
      ...spec,
    });
  }

  function call(method: string, path: string, body?: object): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, body, { Authorization: `Bot ${sut.botToken}` });
  }

  /** The field's first error, where Discord puts it in an Invalid Form Body. */
  function fieldError(reply: JsonReply, ...path: string[]) {
    let node: unknown = reply.body.errors;
    for (const key of path) node = (node as Record<string, unknown> | undefined)?.[key];
    return (node as { _errors?: { code: string; message: string }[] } | undefined)?._errors?.[0];
  }

  describe('voice bitrate', () => {
    it.each([
      [0, 96000],
      [1, 128000],
      [2, 256000],
      [3, 384000],
    ])('at boost level %i takes up to %i on create, and refuses one more', async (tier, cap) => {
      const { guildId } = seed({ premium_tier: tier as 0 | 1 | 2 | 3 });
      const create = (bitrate: number) =>
        call('POST', `/guilds/${guildId}/channels`, { name: `v${bitrate}`, type: 2, bitrate });
      const refused = await create(cap + 1000);
      expect(refused).toMatchObject({ status: 400, body: { code: 50035, message: 'Invalid Form Body' } });
      expect(fieldError(refused, 'bitrate')).toEqual({
        code: 'NUMBER_TYPE_MAX',
        message: `Int value should be less than or equal to ${cap}.`,
      });
      expect(await create(cap)).toMatchObject({ status: 201, body: { bitrate: cap } });
    });

    it('caps stage channels at 64 kbps whatever the boost level', async () => {
      const { guildId } = seed({ premium_tier: 3 });
      const stage = (bitrate: number) =>
        call('POST', `/guilds/${guildId}/channels`, { name: 'stage', type: 13, bitrate });
      expect((await stage(96000)).status).toBe(400);
      expect(await stage(64000)).toMatchObject({ status: 201, body: { bitrate: 64000 } });
    });

    it('refuses an edit above the cap and leaves the channel as it was', async () => {
      const { channels } = seed();
      const refused = await call('PATCH', `/channels/${channels.lounge}`, { bitrate: 384000, name: 'big' });
      expect(refused).toMatchObject({ status: 400, body: { code: 50035 } });
      expect(fieldError(refused, 'bitrate')?.code).toBe('NUMBER_TYPE_MAX');
      expect((await call('GET', `/channels/${channels.lounge}`)).body).toMatchObject({
        name: 'lounge',
        bitrate: 64000,
      });
      expect(await call('PATCH', `/channels/${channels.lounge}`, { bitrate: 96000 })).toMatchObject({
        status: 200,
        body: { bitrate: 96000 },
      });
    });

    it('reports the guild’s boost level and features on the guild object', async () => {
      const { guildId } = seed({ premium_tier: 2, features: ['ENHANCED_ROLE_COLORS'] });
      expect((await call('GET', `/guilds/${guildId}`)).body).toMatchObject({
        premium_tier: 2,
        features: ['ENHANCED_ROLE_COLORS'],
      });
      expect((await call('GET', `/guilds/${seed().guildId}`)).body).toMatchObject({
        premium_tier: 0,
        features: [],
      });
    });
  });

  describe('topic length', () => {
    it('takes 1024 characters on a text channel and refuses 1025, on create and edit', async () => {
      const { guildId, channels } = seed();
      const created = (topic: string) => call('POST', `/guilds/${guildId}/channels`, { name: 't', topic });
      const refused = await created('x'.repeat(1025));
      expect(refused).toMatchObject({ status: 400, body: { code: 50035 } });
      expect(fieldError(refused, 'topic')).toEqual({
        code: 'BASE_TYPE_BAD_LENGTH',
        message: 'Must be between 0 and 1024 in length.',
      });
      expect((await created('x'.repeat(1024))).status).toBe(201);
      const edit = await call('PATCH', `/channels/${channels.general}`, { topic: 'y'.repeat(1025) });
      expect(edit).toMatchObject({ status: 400, body: { code: 50035 } });
      expect((await call('GET', `/channels/${channels.general}`)).body.topic).toBe('hello');
    });

    it('takes 4096 characters on a forum', async () => {
      const { guildId } = seed();
      const forum = (topic: string) =>
        call('POST', `/guilds/${guildId}/channels`, { name: 'f', type: 15, topic });
      expect((await forum('x'.repeat(4096))).status).toBe(201);
      expect((await forum('x'.repeat(4097))).status).toBe(400);
    });
  });

  describe('role colours', () => {
    it('answers every role with `colors`, its primary equal to `color`', async () => {
      const { guildId, roles } = seed();
      const listed = (await call('GET', `/guilds/${guildId}/roles`)).body as unknown as {
        id: string;
        color: number;
        colors: unknown;
      }[];
      expect(listed.find((role) => role.id === roles.Plain)).toMatchObject({
        color: 0x3498db,
        colors: { primary_color: 0x3498db, secondary_color: null, tertiary_color: null },
      });
    });

    it('refuses a secondary or tertiary colour in a guild without ENHANCED_ROLE_COLORS', async () => {
      const { guildId, roles } = seed();
      const refused = await call('POST', `/guilds/${guildId}/roles`, {
        name: 'Gradient',
        colors: { primary_color: 0xff0000, secondary_color: 0x0000ff },
      });
      expect(refused).toMatchObject({ status: 400, body: { code: 50035 } });
      expect(fieldError(refused, 'colors', 'secondary_color')?.code).toBe('ENHANCED_ROLE_COLORS_REQUIRED');
      const edit = await call('PATCH', `/guilds/${guildId}/roles/${roles.Plain}`, {
        colors: { primary_color: 1, secondary_color: 2 },
      });
      expect(edit).toMatchObject({ status: 400, body: { code: 50035 } });
      // Only the primary colour is fine, and null clears a secondary.
      expect(
        await call('PATCH', `/guilds/${guildId}/roles/${roles.Plain}`, {
          colors: { primary_color: 0x00ff00, secondary_color: null },
        }),
      ).toMatchObject({
        status: 200,
        body: { color: 0x00ff00, colors: { primary_color: 0x00ff00, secondary_color: null } },
      });
    });

    it('stores a gradient where the guild has the feature, and `color` alone sets only the primary', async () => {
      const { guildId } = seed({ premium_tier: 2, features: ['ENHANCED_ROLE_COLORS'] });
      const created = await call('POST', `/guilds/${guildId}/roles`, {
        name: 'Gradient',
        colors: { primary_color: 0xff0000, secondary_color: 0x0000ff },
      });
      expect(created).toMatchObject({
        status: 200,
        body: {
          color: 0xff0000,
          colors: { primary_color: 0xff0000, secondary_color: 0x0000ff, tertiary_color: null },
        },
      });
      const recoloured = await call('PATCH', `/guilds/${guildId}/roles/${String(created.body.id)}`, {
        color: 0x00ff00,
      });
      expect(recoloured.body).toMatchObject({
        color: 0x00ff00,
        colors: { primary_color: 0x00ff00, secondary_color: 0x0000ff, tertiary_color: null },
      });
    });

    it('takes a tertiary colour only as the holographic preset', async () => {
      const { guildId } = seed({ features: ['ENHANCED_ROLE_COLORS'] });
      const odd = await call('POST', `/guilds/${guildId}/roles`, {
        name: 'Odd',
        colors: { primary_color: 1, secondary_color: 2, tertiary_color: 3 },
      });
      expect(odd).toMatchObject({ status: 400, body: { code: 670008, message: 'Invalid role color' } });
      const holo = await call('POST', `/guilds/${guildId}/roles`, { name: 'Holo', colors: HOLOGRAPHIC });
      expect(holo).toMatchObject({
        status: 200,
        body: { color: HOLOGRAPHIC.primary_color, colors: HOLOGRAPHIC },
      });
    });
  });
});
