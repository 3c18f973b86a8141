import { FakeChatPlatform, type SeededGuild, demoGuildSpec } from '@lib/sandbox';
import { REST } from '@discordjs/rest';
import { AuditLogEvent, Routes } from 'discord-api-types/v10';
import { createHash } from 'node:crypto';
import {
  ERROR_RESPONSE,
  GUILD_IMAGE_FORUM_CONTRACTS,
  numericBitfields,
  ROUTE_CONTRACTS,
  type RouteContract,
} from './support/discord-schemas';
import { RecordingProxy } from './support/recording-proxy';
import { itChecksEveryRoute } from './support/route-checks';
import { checkAgainst } from './support/schema-check';

const REASON = 'contract suite';

/** A 1x1 PNG, and another PNG of other bytes (text after its end changes its hash, not its kind). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const OTHER_PNG = Buffer.concat([PNG, Buffer.from('other')]);
const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** The features a guild needs for every image, role icons and media channels. */
const FEATURES = ['BANNER', 'INVITE_SPLASH', 'DISCOVERABLE', 'ROLE_ICONS', 'COMMUNITY'];

/**
 * The routes this suite calls: the channel routes with media channels allowed, then the guild,
 * role and audit-log routes ROUTE_CONTRACTS holds, checked here with images, role icons and forum
 * fields in their bodies.
 */
const CHECKED: RouteContract[] = [
  ...GUILD_IMAGE_FORUM_CONTRACTS,
  ...ROUTE_CONTRACTS.filter(
    (contract) =>
      /^\/guilds\/\{guild_id\}(\/roles(\/\{role_id\})?|\/audit-logs)?$/.test(contract.path) &&
      !(contract.method === 'PATCH' && contract.path === '/guilds/{guild_id}/roles'),
  ),
];

describe('the fake platform’s guild images, role icons and forum channels against the published Discord schemas', () => {
  const platform = new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } });
  let proxy: RecordingProxy;
  let rest: REST;
  let seeded: SeededGuild;
  let roleIconPath: string;

  beforeAll(async () => {
    await platform.start();
    proxy = new RecordingProxy(platform.url);
    await proxy.start();
    rest = new REST({ api: `${proxy.url}/api`, retries: 0 }).setToken(platform.botToken);
    const spec = demoGuildSpec('Images and Forums Guild');
    seeded = platform.seedGuild({ ...spec, features: FEATURES, emojis: [{ name: 'party' }] });
    await exerciseEveryRoute();
  }, 60_000);

  afterAll(async () => {
    await proxy.stop();
    await platform.stop();
  });

  /** Every route, as a backup and a restore (and a raid) will use them, and the refusals they meet. */
  async function exerciseEveryRoute() {
    const guildId = seeded.guildId;
    await rest.patch(Routes.guild(guildId), {
      body: {
        icon: dataUri(PNG),
        banner: dataUri(PNG),
        splash: dataUri(PNG),
        discovery_splash: dataUri(PNG),
      },
      reason: REASON,
    });
    await rest.get(Routes.guild(guildId));
    await rest.patch(Routes.guild(guildId), { body: { icon: dataUri(OTHER_PNG), splash: null } });
    const role = (await rest.post(Routes.guildRoles(guildId), {
      body: { name: 'Iconic', icon: dataUri(PNG), unicode_emoji: '⭐' },
      reason: REASON,
    })) as { id: string; icon: string };
    roleIconPath = `role-icons/${role.id}/${role.icon}.png`;
    await rest.get(Routes.guildRoles(guildId));
    await rest.patch(Routes.guildRole(guildId, role.id), { body: { icon: null, unicode_emoji: null } });
    const forum = (await rest.post(Routes.guildChannels(guildId), {
      body: {
        name: 'help-forum',
        type: 15,
        topic: 'Ask here',
        available_tags: [
          { name: 'question', emoji_name: '❓' },
          { name: 'solved', moderated: true, emoji_id: seeded.emojis.party },
        ],
        default_reaction_emoji: { emoji_name: '👍' },
        default_sort_order: 1,
        default_forum_layout: 2,
        default_thread_rate_limit_per_user: 30,
      },
      reason: REASON,
    })) as { id: string; available_tags: { id: string; name: string }[] };
    await rest.post(Routes.guildChannels(guildId), {
      body: { name: 'clips', type: 16, available_tags: [{ name: 'clip' }] },
    });
    await rest.patch(Routes.channel(forum.id), {
      body: {
        available_tags: [{ id: forum.available_tags[0].id, name: 'questions' }, { name: 'bug' }],
        default_reaction_emoji: null,
        default_sort_order: null,
      },
      reason: REASON,
    });
    // The fields of some channel types: a forum's flags and archive time (set by an edit: a create
    // takes no flags), a voice channel's region and camera quality.
    await rest.patch(Routes.channel(forum.id), {
      body: { flags: 1 << 4, default_auto_archive_duration: 10080 },
      reason: REASON,
    });
    await rest.post(Routes.guildChannels(guildId), {
      body: { name: 'stage-left', type: 2, rtc_region: 'japan', video_quality_mode: 2 },
      reason: REASON,
    });
    await rest.get(Routes.channel(forum.id));
    await rest.get(Routes.guildChannels(guildId));
    await rest.get(Routes.guildAuditLog(guildId));
    await rest.delete(Routes.guildRole(guildId, role.id));
    // What the platform refuses: a feature the guild lacks, a tag id the channel does not have,
    // tags of one name, an emoji of another guild.
    const plain = platform.seedGuild({ name: 'Plain Guild', emojis: [{ name: 'elsewhere' }] });
    const refusals = [
      () => rest.patch(Routes.guild(plain.guildId), { body: { banner: dataUri(PNG) } }),
      () => rest.patch(Routes.channel(forum.id), { body: { available_tags: [{ id: guildId, name: 'x' }] } }),
      () =>
        rest.patch(Routes.channel(forum.id), { body: { available_tags: [{ name: 'a' }, { name: 'A' }] } }),
      () =>
        rest.post(Routes.guildChannels(guildId), {
          body: { name: 'f', type: 15, default_reaction_emoji: { emoji_id: plain.emojis.elsewhere } },
        }),
    ];
    // One at a time, in order: each is sent once the one before is refused.
    for (const refusal of refusals) await expect(refusal()).rejects.toThrow();
  }

  itChecksEveryRoute(CHECKED, () => proxy.exchanges, numericBitfields);

  it('answers every refusal in the error format, with the JSON error codes Discord documents', () => {
    const refusals = proxy.exchanges.filter((exchange) => exchange.status >= 400);
    const mismatches = refusals.flatMap((exchange) => {
      const { loose, strict } = checkAgainst(ERROR_RESPONSE, exchange.responseBody);
      return [...new Set([...loose, ...strict])].map((line) => `${exchange.method} ${exchange.path} ${line}`);
    });
    expect(mismatches).toEqual([]);
    // Invalid Form Body (no BANNER), Unknown Tag, Tag names must be unique, Unknown Emoji.
    expect(refusals.map((exchange) => (exchange.responseBody as { code: number }).code)).toEqual([
      50035, 10087, 40061, 10014,
    ]);
  });

  it('reports the images’ hashes and serves their bytes from the CDN', async () => {
    const guild = platform.guild(seeded.guildId);
    expect(guild).toMatchObject({
      icon: md5(OTHER_PNG),
      banner: md5(PNG),
      splash: null,
      discovery_splash: md5(PNG),
    });
    const icon = await fetch(`${platform.cdnUrl}/icons/${seeded.guildId}/${md5(OTHER_PNG)}.png`);
    expect(Buffer.from(await icon.arrayBuffer())).toEqual(OTHER_PNG);
    const banner = await fetch(`${platform.cdnUrl}/banners/${seeded.guildId}/${md5(PNG)}.webp?size=512`);
    expect(banner.status).toBe(200);
    // The splash was removed, the role icon with its role.
    expect((await fetch(`${platform.cdnUrl}/splashes/${seeded.guildId}/${md5(PNG)}.png`)).status).toBe(404);
    expect((await fetch(`${platform.cdnUrl}/${roleIconPath}`)).status).toBe(404);
  });

  it('writes the documented audit-log events, image changes under their *_hash keys', () => {
    const entries = platform.auditLog(seeded.guildId);
    const guildUpdates = entries.filter((entry) => entry.action_type === AuditLogEvent.GuildUpdate);
    expect(guildUpdates.map((entry) => entry.changes?.map((change) => change.key).sort())).toEqual([
      ['banner_hash', 'discovery_splash_hash', 'icon_hash', 'splash_hash'],
      ['icon_hash', 'splash_hash'],
    ]);
    const roleUpdate = entries.find((entry) => entry.action_type === AuditLogEvent.RoleUpdate);
    expect(roleUpdate?.changes?.map((change) => change.key).sort()).toEqual(['icon_hash', 'unicode_emoji']);
    const channelUpdate = entries.find((entry) => entry.action_type === AuditLogEvent.ChannelUpdate);
    expect(channelUpdate?.changes?.map((change) => change.key).sort()).toEqual([
      'available_tags',
      'default_reaction_emoji',
      'default_sort_order',
    ]);
    expect(channelUpdate?.reason).toBe(REASON);
  });
});
