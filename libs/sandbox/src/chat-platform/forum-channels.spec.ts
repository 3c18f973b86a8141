import { AuditLogEvent } from 'discord-api-types/v10';
import { FakeChatPlatform } from './fake-chat-platform';
import type { GuildSpec, SeededGuild } from './guild-seed';
import { type Json, type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

type FieldErrors = { [field: string]: FieldErrors } & { _errors?: { code: string }[] };
/** The first error code at a path of an Invalid Form Body answer, e.g. `available_tags.0.name`. */
const errorAt = (reply: JsonReply, path: string) =>
  path
    .split('.')
    .reduce<FieldErrors | undefined>((node, key) => node?.[key], reply.body.errors as FieldErrors)
    ?._errors?.[0]?.code;

const FORUM_FIELDS = [
  'available_tags',
  'default_reaction_emoji',
  'default_sort_order',
  'default_forum_layout',
  'default_thread_rate_limit_per_user',
];

/**
 * Forum (15) and media (16) channels' own fields (resources/channel, Channel Object and Forum Tag
 * Object; resources/guild, Create Guild Channel): what they take, the tags' ids, their limits and
 * errors, and their audit-log entries.
 */
describe(`${FakeChatPlatform.name} forum and media channels`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  function seed(spec: Partial<GuildSpec> = {}): SeededGuild {
    seeded = sut.seedGuild({ name: 'Forums', emojis: [{ name: 'party' }], ...spec });
    return seeded;
  }

  beforeEach(() => seed());

  function call(method: string, path: string, body?: unknown): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10${path}`, method, body, { Authorization: `Bot ${sut.botToken}` });
  }

  const createChannel = (body: Json) =>
    call('POST', `/guilds/${seeded.guildId}/channels`, { name: 'forum', type: 15, ...body });
  const tagsOf = (reply: JsonReply) => reply.body.available_tags as Json[];

  it('creates a forum with its fields, giving each new tag an id', async () => {
    const reply = await createChannel({
      topic: 'x'.repeat(4096),
      available_tags: [
        { name: 'help', emoji_name: '❓' },
        { name: 'solved', moderated: true, emoji_id: seeded.emojis.party },
      ],
      default_reaction_emoji: { emoji_id: null, emoji_name: '👍' },
      default_sort_order: 1,
      default_forum_layout: 2,
      default_thread_rate_limit_per_user: 60,
    });

    expect(reply.status).toBe(201);
    expect(tagsOf(reply)).toEqual([
      {
        id: expect.stringMatching(/^\d+$/),
        name: 'help',
        moderated: false,
        emoji_id: null,
        emoji_name: '❓',
      },
      {
        id: expect.stringMatching(/^\d+$/),
        name: 'solved',
        moderated: true,
        emoji_id: seeded.emojis.party,
        emoji_name: null,
      },
    ]);
    expect(reply.body).toMatchObject({
      default_reaction_emoji: { emoji_id: null, emoji_name: '👍' },
      default_sort_order: 1,
      default_forum_layout: 2,
      default_thread_rate_limit_per_user: 60,
    });
    expect(
      sut.guild(seeded.guildId).channels.find((c) => c.id === reply.body.id)?.available_tags,
    ).toHaveLength(2);
  });

  it('reports a new forum’s defaults, and gives other channel types none of these fields', async () => {
    const forum = await createChannel({});
    const text = await createChannel({ name: 'text', type: 0, available_tags: [{ name: 'ignored' }] });

    expect(forum.body).toMatchObject({
      available_tags: [],
      default_reaction_emoji: null,
      default_sort_order: null,
      default_forum_layout: 0,
      default_thread_rate_limit_per_user: 0,
    });
    expect(Object.keys(text.body)).not.toEqual(expect.arrayContaining([FORUM_FIELDS[0]]));
    for (const field of FORUM_FIELDS) expect(text.body).not.toHaveProperty(field);
  });

  it('keeps the ids of tags sent with them, adds new ones and drops those left out', async () => {
    const forum = await createChannel({ available_tags: [{ name: 'a' }, { name: 'b' }] });
    const [a] = tagsOf(forum);

    const edited = await call('PATCH', `/channels/${forum.body.id as string}`, {
      available_tags: [{ id: a.id, name: 'a renamed' }, { name: 'c' }],
    });

    expect(edited.status).toBe(200);
    const tags = tagsOf(edited);
    expect(tags.map((tag) => tag.name)).toEqual(['a renamed', 'c']);
    expect(tags[0].id).toBe(a.id);
    expect(tags[1].id).not.toBe(tagsOf(forum)[1].id);
  });

  it('refuses a tag id the channel does not have, at creation too (10087 Unknown Tag)', async () => {
    const forum = await createChannel({ available_tags: [{ name: 'a' }] });
    const other = await createChannel({ name: 'other', available_tags: [{ name: 'b' }] });

    const foreign = await call('PATCH', `/channels/${forum.body.id as string}`, {
      available_tags: [{ id: tagsOf(other)[0].id, name: 'b' }],
    });
    const atCreation = await createChannel({ available_tags: [{ id: tagsOf(forum)[0].id, name: 'a' }] });

    expect([foreign.status, foreign.body.code]).toEqual([404, 10087]);
    expect([atCreation.status, atCreation.body.code]).toEqual([404, 10087]);
  });

  it('refuses tag names that repeat, ignoring case (40061)', async () => {
    const reply = await createChannel({ available_tags: [{ name: 'Help' }, { name: 'help' }] });
    expect([reply.status, reply.body.code]).toEqual([400, 40061]);
  });

  it('holds tags to their documented limits', async () => {
    const tooMany = await createChannel({
      available_tags: Array.from({ length: 21 }, (_, index) => ({ name: `tag ${index}` })),
    });
    const longName = await createChannel({ available_tags: [{ name: 'x'.repeat(21) }] });
    const twoEmojis = await createChannel({
      available_tags: [{ name: 'both', emoji_id: seeded.emojis.party, emoji_name: '❓' }],
    });
    const noName = await createChannel({ available_tags: [{ moderated: true }] });

    expect(errorAt(tooMany, 'available_tags')).toBe('BASE_TYPE_MAX_LENGTH');
    expect(errorAt(longName, 'available_tags.0.name')).toBe('BASE_TYPE_BAD_LENGTH');
    expect(errorAt(twoEmojis, 'available_tags.0.emoji_name')).toBe('EMOJI_ID_AND_NAME_SET');
    expect(errorAt(noName, 'available_tags.0.name')).toBe('BASE_TYPE_REQUIRED');
    expect(sut.guild(seeded.guildId).channels.filter((c) => c.type === 15)).toEqual([]);
  });

  it('refuses an emoji id that is not one of the guild’s emojis (10014)', async () => {
    const other = sut.seedGuild({ name: 'Elsewhere', emojis: [{ name: 'foreign' }] });
    const inTag = await createChannel({ available_tags: [{ name: 'a', emoji_id: other.emojis.foreign }] });
    const asReaction = await createChannel({ default_reaction_emoji: { emoji_id: other.emojis.foreign } });

    expect([inTag.status, inTag.body.code]).toEqual([404, 10014]);
    expect([asReaction.status, asReaction.body.code]).toEqual([404, 10014]);
  });

  it.each([
    ['default_sort_order', 2],
    ['default_forum_layout', 3],
    ['default_thread_rate_limit_per_user', 21_601],
  ])('refuses %s = %s', async (field, value) => {
    const reply = await createChannel({ [field]: value });
    expect(reply.status).toBe(400);
    expect(errorAt(reply, field)).toBeDefined();
  });

  it('refuses a forum topic past 4096 characters', async () => {
    const reply = await createChannel({ topic: 'x'.repeat(4097) });
    expect(errorAt(reply, 'topic')).toBe('BASE_TYPE_BAD_LENGTH');
  });

  it('creates a media channel only in a Community guild, without the forum layout', async () => {
    const refused = await createChannel({ name: 'media', type: 16 });
    expect(errorAt(refused, 'type')).toBe('GUILD_FEATURE_REQUIRED');

    seed({ features: ['COMMUNITY'] });
    const media = await createChannel({
      name: 'media',
      type: 16,
      available_tags: [{ name: 'clip' }],
      default_forum_layout: 2,
    });
    expect(media.status).toBe(201);
    expect(media.body).toMatchObject({
      type: 16,
      available_tags: [expect.objectContaining({ name: 'clip' })],
    });
    expect(media.body).not.toHaveProperty('default_forum_layout');
  });

  it('records forum field changes in CHANNEL_UPDATE', async () => {
    const forum = await createChannel({ available_tags: [{ name: 'a' }] });
    await call('PATCH', `/channels/${forum.body.id as string}`, {
      default_reaction_emoji: { emoji_id: seeded.emojis.party },
      default_sort_order: 0,
    });

    const update = sut.auditLog(seeded.guildId).find((e) => e.action_type === AuditLogEvent.ChannelUpdate);
    expect(update?.changes).toEqual(
      expect.arrayContaining([
        { key: 'default_reaction_emoji', new_value: { emoji_id: seeded.emojis.party, emoji_name: null } },
        { key: 'default_sort_order', new_value: 0 },
      ]),
    );
  });

  it('seeds a forum with its tags, each given an id', () => {
    seed({
      channels: [
        {
          name: 'help',
          type: 'forum',
          tags: [
            { name: 'question', emoji_name: '❓' },
            { name: 'solved', moderated: true },
          ],
          default_reaction_emoji: '👍',
          default_forum_layout: 1,
        },
      ],
    });
    const forum = sut.guild(seeded.guildId).channels.find((c) => c.name === 'help');
    expect(forum?.available_tags).toEqual([
      {
        id: expect.stringMatching(/^\d+$/),
        name: 'question',
        moderated: false,
        emoji_id: null,
        emoji_name: '❓',
      },
      {
        id: expect.stringMatching(/^\d+$/),
        name: 'solved',
        moderated: true,
        emoji_id: null,
        emoji_name: null,
      },
    ]);
    expect(forum).toMatchObject({
      default_reaction_emoji: { emoji_id: null, emoji_name: '👍' },
      default_forum_layout: 1,
      default_sort_order: null,
    });
  });

  it('seeds a forum channel with the defaults a new one has', () => {
    seed({ channels: [{ name: 'seeded forum', type: 'forum' }] });
    const forum = sut.guild(seeded.guildId).channels.find((c) => c.name === 'seeded forum');
    expect(forum).toMatchObject({ available_tags: [], default_forum_layout: 0, default_sort_order: null });
  });

  describe('fields of some channel types (rtc_region, video_quality_mode, default_auto_archive_duration, flags)', () => {
    it('reports each on the types that have it, with a new channel’s values', async () => {
      const voice = await createChannel({ type: 2, name: 'voice' });
      const text = await createChannel({ type: 0, name: 'text' });
      const forum = await createChannel({});

      expect(voice.body).toMatchObject({ rtc_region: null, video_quality_mode: 1 });
      expect(voice.body).not.toHaveProperty('default_auto_archive_duration');
      expect(text.body).toMatchObject({ default_auto_archive_duration: 1440, flags: 0 });
      expect(text.body).not.toHaveProperty('rtc_region');
      expect(forum.body).toMatchObject({ default_auto_archive_duration: 1440, flags: 0 });
    });

    it('takes no flags at creation, and REQUIRE_TAG on a forum’s edit', async () => {
      const forum = await createChannel({ flags: 1 << 4 });
      expect(forum.body.flags).toBe(0);

      const edited = await call('PATCH', `/channels/${forum.body.id as string}`, { flags: 1 << 4 });

      expect(edited.status).toBe(200);
      expect(edited.body.flags).toBe(1 << 4);
    });

    it('refuses a flag the type does not take, an unknown region and an archive time off the list', async () => {
      const forum = await createChannel({});
      const voice = await createChannel({ type: 2, name: 'voice' });
      const edit = (id: unknown, body: Json) => call('PATCH', `/channels/${id as string}`, body);

      const media = await edit(forum.body.id, { flags: 1 << 15 });
      const region = await edit(voice.body.id, { rtc_region: 'moon' });
      const archive = await edit(forum.body.id, { default_auto_archive_duration: 120 });

      expect([media.status, errorAt(media, 'flags')]).toEqual([400, 'CHANNEL_FLAGS_INVALID']);
      expect([region.status, errorAt(region, 'rtc_region')]).toEqual([400, 'BASE_TYPE_CHOICES']);
      expect([archive.status, errorAt(archive, 'default_auto_archive_duration')]).toEqual([
        400,
        'BASE_TYPE_CHOICES',
      ]);
    });
  });
});
