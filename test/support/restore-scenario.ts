import { ChatPlatformClient, type GuildState, type PlatformChannel } from '@lib/chat-platform';
import type { FakeChatPlatform, GuildSpec, SeededGuild } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import {
  readSnapshotPayload,
  type SnapshotPayload,
} from '../../apps/recovery/src/snapshots/snapshot-payload';

export const OWNER = '200000000000000001';
export const ADMIN = '200000000000000002';
export const MEMBER = '200000000000000003';

/** A guild with the shapes a restore must get right: categories, private channels, member overwrites. */
export function seedProtectedGuild(
  platform: FakeChatPlatform,
  name: string,
  extraRoles = 0,
  crowd = 0,
  bot?: GuildSpec['bot'],
  adjust: (spec: GuildSpec) => void = () => {},
): SeededGuild {
  const spec: GuildSpec = {
    name,
    bot,
    owner: { id: OWNER, username: 'owner' },
    settings: { verification_level: 2, afk_timeout: 900, afk_channel: 'lounge', system_channel: 'general' },
    roles: [
      { name: 'Member', permissions: P.SendMessages | P.ViewChannel, color: 0x3498db },
      // Bits a bot installed with the least permissions holds, so it can make the role again; what
      // it cannot make is restore.test.ts's "what a bot with the least permissions cannot do".
      { name: 'Moderator', permissions: P.ManageChannels | P.ViewAuditLog, hoist: true, color: 0x2ecc71 },
      { name: 'Admin', permissions: P.Administrator, color: 0xe74c3c, mentionable: true },
      ...Array.from({ length: extraRoles }, (_, i) => ({ name: `extra-${i}`, permissions: P.SendMessages })),
    ],
    categories: [
      {
        name: 'Info',
        overwrites: [{ role: '@everyone', deny: P.SendMessages }],
        channels: [
          { name: 'rules', topic: 'Be kind', overwrites: [{ role: 'Moderator', allow: P.SendMessages }] },
          { name: 'announcements', type: 'announcement' },
        ],
      },
      {
        name: 'Staff',
        overwrites: [
          { role: '@everyone', deny: P.ViewChannel },
          { role: 'Moderator', allow: P.ViewChannel },
          { member: 'member', allow: P.ViewChannel },
        ],
        channels: [{ name: 'mod-chat', topic: 'Staff only', rate_limit_per_user: 10 }],
      },
      { name: 'Voice', channels: [{ name: 'lounge', type: 'voice', bitrate: 64000, user_limit: 10 }] },
    ],
    channels: [{ name: 'general', topic: 'Anything goes' }],
    members: [
      { username: 'admin', id: ADMIN, roles: ['Admin'] },
      { username: 'member', id: MEMBER, roles: ['Member'] },
      ...crowdOf(crowd),
    ],
  };
  adjust(spec);
  return platform.seedGuild(spec);
}

/** `crowd-<i>`: each a Member, every fourth a Moderator too. */
function crowdOf(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    username: `crowd-${i}`,
    roles: i % 4 === 0 ? ['Member', 'Moderator'] : ['Member'],
  }));
}

/** The token the raid goes through: the owner's account, compromised. */
const RAIDER_TOKEN = 'compromised-owner-token';

/**
 * What a raid does, through the platform's API as a compromised owner would: the owner's account
 * is the one most worth stealing, and no role order stands in its way.
 */
export async function raid(platform: FakeChatPlatform, seeded: SeededGuild): Promise<void> {
  platform.registerBotToken(RAIDER_TOKEN, seeded.ownerId);
  const raider = new ChatPlatformClient({ apiBaseUrl: `${platform.url}/api`, botToken: RAIDER_TOKEN });
  const guild = seeded.guildId;
  await raider.deleteRole(guild, seeded.roles.Moderator);
  await raider.deleteChannel(seeded.channels.rules);
  await raider.deleteChannel(seeded.channels['mod-chat']);
  await raider.deleteChannel(seeded.channels.Staff);
  await raider.updateRole(guild, seeded.roles.Admin, { name: 'pwned', color: 0, mentionable: false });
  await raider.updateChannel(seeded.channels.general, { name: 'raided', topic: 'gg' });
  await raider.putPermissionOverride({
    channel_id: seeded.channels.announcements,
    id: guild,
    type: 'role',
    allow: String(P.SendMessages | P.MentionEveryone),
    deny: '0',
  });
  await raider.deletePermissionOverride(seeded.channels.Info, guild);
  await raider.createChannel(guild, { name: 'spam', type: 0 });
  await raider.createRole(guild, { name: 'raider', permissions: String(P.Administrator) });
  await raider.updateGuildSettings(guild, { name: 'RAIDED', verification_level: 0, afk_timeout: 60 });
}

/** A snapshot's payload as recovery stored it, read (version checked) as a restore reads it. */
export async function storedPayload(dataSource: DataSource, snapshotId: string): Promise<SnapshotPayload> {
  const [{ payload }] = await dataSource.query<{ payload: unknown }[]>(
    `SELECT payload FROM recovery.snapshots WHERE id = $1`,
    [snapshotId],
  );
  return readSnapshotPayload(payload);
}

/** Snapshot id -> live id, following the replacements recovery recorded for recreated items. */
export async function idMap(
  dataSource: DataSource,
  guildId: string,
): Promise<(kind: 'role' | 'channel' | 'emoji', id: string) => string> {
  const rows = await dataSource.query<{ kind: string; original_id: string; replacement_id: string }[]>(
    `SELECT kind, original_id, replacement_id FROM recovery.platform_id_replacements WHERE guild_id = $1`,
    [guildId],
  );
  const map = new Map(rows.map((row) => [`${row.kind}:${row.original_id}`, row.replacement_id]));
  return (kind, id) => {
    let current = id;
    for (let hops = 0; map.has(`${kind}:${current}`) && hops < 20; hops++)
      current = map.get(`${kind}:${current}`)!;
    return current;
  };
}

/**
 * The parts of the live guild that the given scopes restore, expressed in snapshot ids, so that a
 * restored guild compares equal to the snapshot: names, colours, permissions, order, parents,
 * overwrites and settings.
 */
export function restorable(
  state: GuildState,
  scopes: string[],
  toSnapshotId?: (kind: 'role' | 'channel', id: string) => string,
) {
  const id = (kind: 'role' | 'channel', value: string) => (toSnapshotId ? toSnapshotId(kind, value) : value);
  const roles = state.roles
    .filter((role) => !role.managed)
    .sort((a, b) => a.position - b.position)
    .map((role) => ({
      id: id('role', role.id),
      name: role.name,
      color: role.color,
      permissions: role.permissions,
      hoist: role.hoist,
      mentionable: role.mentionable,
    }));
  const channel = (c: PlatformChannel) => ({
    id: id('channel', c.id),
    name: c.name,
    type: c.type,
    topic: c.topic,
    nsfw: c.nsfw,
    rate_limit_per_user: c.rate_limit_per_user,
    bitrate: c.bitrate,
    user_limit: c.user_limit,
    parent_id: c.parent_id === null ? null : id('channel', c.parent_id),
    position: c.position,
  });
  const overrides = state.permission_overrides
    .map((o) => ({
      ...o,
      channel_id: id('channel', o.channel_id),
      id: o.type === 'role' ? id('role', o.id) : o.id,
    }))
    .sort((a, b) => `${a.channel_id}:${a.id}`.localeCompare(`${b.channel_id}:${b.id}`));
  const { id: _id, owner_id: _owner, icon: _icon, ...settings } = state.guild;
  const channelSetting = (value: string | null) => (value === null ? null : id('channel', value));
  return {
    ...(scopes.includes('roles') ? { roles } : {}),
    ...(scopes.includes('channels')
      ? { channels: state.channels.map(channel).sort((a, b) => a.id.localeCompare(b.id)) }
      : {}),
    ...(scopes.includes('permission_overrides') ? { overrides } : {}),
    ...(scopes.includes('guild_settings')
      ? {
          settings: {
            ...settings,
            afk_channel_id: channelSetting(settings.afk_channel_id),
            system_channel_id: channelSetting(settings.system_channel_id),
            rules_channel_id: channelSetting(settings.rules_channel_id),
            public_updates_channel_id: channelSetting(settings.public_updates_channel_id),
          },
        }
      : {}),
  };
}
