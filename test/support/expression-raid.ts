import type { ChatPlatformClient, PlatformChannel } from '@lib/chat-platform';
import type { GuildSpec } from '@lib/sandbox';
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { meaningful } from '../../apps/recovery/src/restore/diff/automod-diff';
import { readGuildExpressions } from '../../apps/recovery/src/snapshots/images/guild-expressions.reader';
import type { SnapshotPayload } from '../../apps/recovery/src/snapshots/snapshot-payload';
import type { RestoreHarness } from './restore-harness';
import { idMap, storedPayload } from './restore-scenario';
import { defaceWelcomeFlow, welcomeFlowRestored, withWelcomeFlow } from './welcome-flow-raid';

/**
 * The roles (emojis and AutoMod rules name them), the emojis, stickers, images, AutoMod rules and
 * webhooks.
 */
export const EXPRESSION_SCOPES = [
  'roles',
  'channels',
  'emojis',
  'stickers',
  'guild_images',
  'automod',
  'webhooks',
  'onboarding',
];

/** 1x1 PNGs of different colours: the guild's icon and banner, and what a raider uploads. */
const png = (base64: string) => Buffer.from(base64, 'base64');
const ICON = png(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mNg+M8AAAICAQB7CYF4AAAAAElFTkSuQmCC',
);
const BANNER = png(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mNgYPgPAAEDAQAIicLsAAAAAElFTkSuQmCC',
);
export const RAIDER_PNG = png(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC',
);
/**
 * A PNG nothing else uploads, of about `size` bytes: a 1x1 image followed by random bytes (the
 * platform and the fake go by the bytes' signature; a real emoji is tens of kilobytes).
 */
export function uniquePng(size = 64): Buffer {
  return Buffer.concat([RAIDER_PNG, randomBytes(size)]);
}

/** withExpressions, every image one of its own: nothing is shared with another guild's snapshots. */
export function withOwnImages(spec: GuildSpec): void {
  withExpressions(spec);
  spec.images = { icon: uniquePng(), banner: uniquePng() };
  const own = () => ({ bytes: uniquePng(), contentType: 'image/png' });
  spec.emojis = spec.emojis!.map((emoji) => (emoji.animated ? emoji : { ...emoji, image: own() }));
  spec.stickers = spec.stickers!.map((sticker) => ({ ...sticker, image: own() }));
  spec.setup!.webhooks = spec.setup!.webhooks!.map((webhook) =>
    webhook.avatar ? { ...webhook, avatar: avatarOf(uniquePng()) } : webhook,
  );
}

/** A webhook's avatar as the sandbox serves it: under the MD5 of its bytes, as the fake names uploads. */
function avatarOf(bytes: Buffer) {
  return { hash: createHash('md5').update(bytes).digest('hex'), image: { bytes, contentType: 'image/png' } };
}

const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

/**
 * A boosted guild with emojis (one kept to Members, one animated), two stickers, an icon and a
 * banner, two AutoMod rules and two incoming webhooks (one with an avatar).
 */
export function withExpressions(spec: GuildSpec): void {
  spec.premium_tier = 2;
  spec.features = [...(spec.features ?? []), 'BANNER'];
  spec.images = { icon: ICON, banner: BANNER };
  spec.emojis = [{ name: 'party', roles: ['Member'] }, { name: 'dance', animated: true }, { name: 'wave' }];
  spec.stickers = [{ name: 'hello', description: 'Hi there' }, { name: 'bye' }];
  spec.setup = {
    autoModRules: [
      { name: 'No links', exemptRoles: ['Member'], exemptChannels: ['general'] },
      { name: 'Bad words', trigger_metadata: { keyword_filter: ['nuke'] } },
    ],
    webhooks: [
      { name: 'Feed', channel: 'general', avatar: avatarOf(ICON) },
      { name: 'Builds', channel: 'announcements' },
    ],
  };
}

/**
 * A raid on what the guild looks like: every emoji and sticker deleted but one sticker defaced, a
 * raider's emoji under a kept name, the icon replaced and the banner removed. Made through the
 * platform's API by a client with the bot's rights (as a hijacked admin's would be).
 */
export async function expressionRaid(raider: ChatPlatformClient, guildId: string): Promise<void> {
  for (const emoji of await raider.listEmojis(guildId)) await raider.deleteEmoji(guildId, emoji.id);
  const [first, ...others] = await raider.listStickers(guildId);
  await raider.updateSticker(guildId, first.id, { description: 'hacked', tags: 'skull' });
  for (const sticker of others) await raider.deleteSticker(guildId, sticker.id);
  await raider.createEmoji(guildId, { name: 'party', image: dataUri(RAIDER_PNG), roles: [] });
  await raider.updateGuildSettings(guildId, { icon: dataUri(RAIDER_PNG), banner: null });
  // AutoMod: one rule deleted, one switched off, and the raider's own.
  const rules = await raider.listAutoModRules(guildId);
  await raider.deleteAutoModRule(guildId, rules.find((rule) => rule.name === 'No links')!.id);
  await raider.updateAutoModRule(guildId, rules.find((rule) => rule.name === 'Bad words')!.id, {
    enabled: false,
  });
  await raider.createAutoModRule(guildId, {
    name: 'raider',
    event_type: 1,
    trigger_type: 1,
    trigger_metadata: { keyword_filter: ['help'] },
    actions: [{ type: 1, metadata: {} }],
    enabled: true,
    exempt_roles: [],
    exempt_channels: [],
  });
  // Webhooks: one deleted (its address is lost for good), and the raider's own.
  const webhooks = await raider.listWebhooks(guildId);
  const feed = webhooks.find((webhook) => webhook.name === 'Feed')!;
  await raider.deleteWebhook(feed.id);
  await raider.createWebhook(feed.channel_id, { name: 'raider hook', avatar: dataUri(RAIDER_PNG) });
}

/** A guild's expressions as comparable values: ids out, role ids mapped by `role`, images by digest. */
function comparable(
  parts: Pick<SnapshotPayload, 'emojis' | 'stickers' | 'guild_images' | 'automod_rules' | 'webhooks'>,
  role: (id: string) => string = (id) => id,
  channel: (id: string) => string = (id) => id,
) {
  const byName = <T extends { name: string }>(items: T[]) =>
    [...items].sort((a, b) => a.name.localeCompare(b.name));
  return {
    emojis: byName(
      (parts.emojis ?? []).map(({ name, animated, roles, image }) => ({
        name,
        animated,
        roles: roles.map(role).sort(),
        image,
      })),
    ),
    stickers: byName(
      (parts.stickers ?? []).map(({ name, description, tags, format_type, image }) => ({
        name,
        description: description ?? '',
        tags,
        format_type,
        image,
      })),
    ),
    guild_images: parts.guild_images ?? {},
    automod_rules: byName(
      (parts.automod_rules ?? []).map(
        ({ id: _id, ...rule }) =>
          meaningful({
            ...rule,
            exempt_roles: rule.exempt_roles.map(role).sort(),
            exempt_channels: rule.exempt_channels.map(channel).sort(),
          }) as { name: string },
      ),
    ),
    webhooks: byName(
      (parts.webhooks ?? []).map(({ name, channel_id, image }) => ({
        name,
        channel: channel(channel_id),
        image,
      })),
    ),
  };
}

/**
 * The guild's emojis, stickers and images now, read as a snapshot reads them (images from the CDN,
 * by digest), against the snapshot's, its role ids followed to the roles the restore made.
 */
export async function expressionsRestored(
  harness: RestoreHarness,
  dataSource: DataSource,
  guildId: string,
  platformGuildId: string,
  snapshotId: string,
) {
  const snapshot = await storedPayload(dataSource, snapshotId);
  const guild = await harness.reader.getGuild(platformGuildId);
  const now = await readGuildExpressions(harness.reader, guild, null);
  if (!('parts' in now)) throw new Error(now.unreadable);
  now.parts.automod_rules = await harness.reader.listAutoModRules(platformGuildId);
  const toLive = await idMap(dataSource, guildId);
  const liveState = await harness.reader.getGuildState(platformGuildId);
  const flow = await welcomeFlowRestored(harness, dataSource, guildId, platformGuildId, snapshotId);
  const forum = (channels: PlatformChannel[]) =>
    comparableForum(channels.find((c) => c.name === 'suggestions'));
  return {
    live: { ...comparable(now.parts), forum: forum(liveState.channels), ...flow.live },
    snapshot: {
      ...comparable(
        snapshot,
        (id) => toLive('role', id),
        (id) => toLive('channel', id),
      ),
      forum: forum(snapshot.channels),
      ...flow.snapshot,
    },
  };
}

/**
 * Everything a guild is beside its roles and channels: withExpressions, a Community's welcome
 * screen and onboarding (naming the `wave` emoji), and a forum with tags, a default reaction, sort
 * order and layout.
 */
export function withEverything(spec: GuildSpec): void {
  withExpressions(spec);
  withWelcomeFlow(spec);
  spec.channels = [
    ...(spec.channels ?? []),
    {
      name: 'suggestions',
      type: 'forum',
      tags: [{ name: 'bug', emoji_name: '🐛' }, { name: 'idea' }, { name: 'done', moderated: true }],
      default_reaction_emoji: '👍',
      default_sort_order: 1,
      default_forum_layout: 2,
    },
  ];
}

/**
 * Seeds, registers and snapshots the guild with everything (ENTERPRISE: its plan keeps images),
 * then raids all of it: expressionRaid, the forum deleted, the welcome screen and onboarding
 * defaced.
 */
export async function expressionScenario(harness: RestoreHarness, raider: ChatPlatformClient) {
  const scenario = await harness.protectedGuild({ plan: 'ENTERPRISE', adjustSpec: withEverything });
  const guildId = scenario.seeded.guildId;
  await expressionRaid(raider, guildId);
  await raider.deleteChannel(scenario.seeded.channels.suggestions);
  await defaceWelcomeFlow(raider, guildId);
  return scenario;
}

/** A forum's own fields as comparable values: its tags without their ids. */
function comparableForum(channel: PlatformChannel | undefined) {
  if (!channel) return undefined;
  const { available_tags, default_reaction_emoji, default_sort_order, default_forum_layout, flags } = channel;
  const tags = available_tags?.map(({ id: _id, ...tag }) => tag);
  return { tags, default_reaction_emoji, default_sort_order, default_forum_layout, flags };
}
