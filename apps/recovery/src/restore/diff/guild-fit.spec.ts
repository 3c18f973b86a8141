import {
  CHANNEL_TYPE,
  type GuildSettings,
  type GuildState,
  HOLOGRAPHIC_ROLE_COLORS,
  PERMISSION,
  type PlatformRole,
} from '@lib/chat-platform';
import { DEFAULT_RESTORE_SCOPES } from '@lib/contracts';
import { guildSettings, platformChannel as channel, platformRole } from '../../sync/guild-state.fixture';
import { readSnapshotPayload } from '../../snapshots/snapshot-payload';
import { type BotStanding, computeRestoreDiff, restoreDiffHash, type RestoreDiff } from '../restore-diff';
import { SnapshotIdResolution } from './id-resolution';

const GUILD = '1000';
const GRADIENT = '2001';
const PLAIN = '2002';
const LOUNGE = '3001';
const STAGE = '3002';
const GENERAL = '3003';
const FORUM = '3004';
const ENHANCED = ['ENHANCED_ROLE_COLORS'];

const RED = 0xff0000;
const BLUE = 0x0000ff;
const GREEN = 0x00ff00;

const BOT: BotStanding = {
  highestRolePosition: 10,
  permissions: PERMISSION.ADMINISTRATOR,
  isOwner: false,
  userId: '9000',
  roleIds: [],
};

function role(id: string, fields: Partial<PlatformRole> = {}): PlatformRole {
  return platformRole(id, fields);
}

function gradient(primary: number, secondary: number): Partial<PlatformRole> {
  return {
    color: primary,
    colors: { primary_color: primary, secondary_color: secondary, tertiary_color: null },
  };
}

/** A guild at boost level 3 with gradient roles: what a snapshot taken before losing boosts holds. */
function boosted(settings: Partial<GuildSettings> = { premium_tier: 3, features: ENHANCED }): GuildState {
  return {
    guild: guildSettings(GUILD, settings),
    roles: [
      role(GUILD, { name: '@everyone', position: 0 }),
      role(GRADIENT, { name: 'gradient', position: 1, ...gradient(RED, BLUE) }),
      role(PLAIN, { name: 'plain', position: 2, color: GREEN }),
    ],
    channels: [
      channel(LOUNGE, { name: 'lounge', type: CHANNEL_TYPE.voice, bitrate: 384000, user_limit: 0 }),
      channel(STAGE, { name: 'stage', type: CHANNEL_TYPE.stage, position: 1, bitrate: 64000, user_limit: 0 }),
      channel(GENERAL, { name: 'general', position: 2, topic: 'hello' }),
      channel(FORUM, { name: 'forum', type: CHANNEL_TYPE.forum, position: 3, topic: 'x'.repeat(4096) }),
    ],
    permission_overrides: [],
  };
}

/**
 * The same guild as it is now: no boosts, no enhanced colours (the default of a guild), its roles
 * and channels within those limits.
 */
function unboosted(state: GuildState = boosted()): GuildState {
  return {
    ...state,
    guild: { ...state.guild, premium_tier: 0, features: [] },
    roles: state.roles.map((r) => ({ ...r, colors: { ...r.colors, secondary_color: null } })),
    channels: state.channels.map((c) => (c.id === LOUNGE ? { ...c, bitrate: 96000 } : c)),
  };
}

/** `roleIcons`: the role icon images a version 3 snapshot keeps, by role id. */
function diff(target: GuildState, live: GuildState, roleIcons?: Record<string, string>): RestoreDiff {
  return computeRestoreDiff({
    target: {
      version: roleIcons ? 3 : 2,
      snapshot_at: '2026-11-01T00:00:00.000Z',
      ...target,
      ...(roleIcons && { role_icons: roleIcons }),
    },
    live,
    scope: DEFAULT_RESTORE_SCOPES,
    ids: new SnapshotIdResolution(live, []),
    bot: BOT,
  });
}

function without(state: GuildState, ...ids: string[]): GuildState {
  return {
    ...state,
    roles: state.roles.filter((item) => !ids.includes(item.id)),
    channels: state.channels.filter((item) => !ids.includes(item.id)),
  };
}

describe('a restore into a guild with lower limits than the snapshot’s', () => {
  it('creates a 384 kbps voice channel at the live cap, with a note; stage channels stay at 64 kbps', () => {
    const planned = diff(boosted(), unboosted(without(boosted(), LOUNGE)));
    expect(planned.channels_to_create).toEqual([expect.objectContaining({ id: LOUNGE, bitrate: 96000 })]);
    expect(planned.clamped).toEqual([
      {
        scope: 'channels',
        id: LOUNGE,
        name: 'lounge',
        field: 'bitrate',
        snapshot_value: 384000,
        restored_value: 96000,
        reason: 'the guild’s boost level (0) allows at most 96 kbps',
      },
    ]);
  });

  it.each([
    [1, 128000],
    [2, 256000],
  ])('clamps to boost level %i’s %i', (tier, cap) => {
    const live = without(boosted({ premium_tier: tier, features: [] }), LOUNGE);
    expect(diff(boosted(), live).channels_to_create[0]).toMatchObject({ id: LOUNGE, bitrate: cap });
  });

  it('lowers a live bitrate above the cap to the cap, and leaves one already at it alone without a note', () => {
    const live = unboosted();
    const lowered = diff(boosted(), {
      ...live,
      channels: live.channels.map((c) => ({ ...c, bitrate: c.id === LOUNGE ? 8000 : c.bitrate })),
    });
    expect(lowered.channels_to_update).toEqual([
      expect.objectContaining({
        target: expect.objectContaining({ bitrate: 96000 }),
        changed_fields: ['bitrate'],
      }),
    ]);
    expect(lowered.clamped.map((item) => [item.id, item.field])).toEqual([[LOUNGE, 'bitrate']]);

    const atCap = diff(boosted(), {
      ...live,
      channels: live.channels.map((c) => ({ ...c, bitrate: c.id === LOUNGE ? 96000 : c.bitrate })),
    });
    expect(atCap.channels_to_update).toEqual([]);
    expect(atCap.clamped).toEqual([]);
  });

  it('cuts a topic longer than the channel type takes (a snapshot of another type), with a note', () => {
    const target = boosted();
    target.channels = target.channels.map((c) => (c.id === FORUM ? { ...c, type: CHANNEL_TYPE.text } : c));
    const planned = diff(target, unboosted(without(boosted(), FORUM)));
    expect(planned.channels_to_create).toEqual([
      expect.objectContaining({ id: FORUM, topic: 'x'.repeat(1024) }),
    ]);
    expect(planned.clamped).toEqual([
      expect.objectContaining({ id: FORUM, field: 'topic', restored_value: 'x'.repeat(1024) }),
    ]);
    // A forum takes 4096 characters.
    expect(diff(boosted(), unboosted(without(boosted(), FORUM))).clamped).toEqual([]);
  });

  it('creates a gradient role with its primary colour only where the guild lacks enhanced colours', () => {
    const planned = diff(boosted(), unboosted(without(boosted(), GRADIENT)));
    expect(planned.roles_to_create).toEqual([
      expect.objectContaining({
        id: GRADIENT,
        color: '#ff0000',
        secondary_color: null,
        tertiary_color: null,
      }),
    ]);
    expect(planned.clamped).toEqual([
      {
        scope: 'roles',
        id: GRADIENT,
        name: 'gradient',
        field: 'secondary_color',
        snapshot_value: '#0000ff',
        restored_value: null,
        reason: 'the guild lacks the ENHANCED_ROLE_COLORS feature: the role keeps its primary colour only',
      },
    ]);
  });

  it('creates a role with an emoji icon without it where the guild lacks ROLE_ICONS, with a note', () => {
    const withIcon = (state: GuildState) => ({
      ...state,
      roles: state.roles.map((r) => (r.id === PLAIN ? { ...r, unicode_emoji: '🎉' } : r)),
    });
    const snapshot = withIcon(boosted({ premium_tier: 3, features: [...ENHANCED, 'ROLE_ICONS'] }));
    const planned = diff(snapshot, unboosted(without(boosted(), PLAIN)));
    expect(planned.roles_to_create).toEqual([expect.objectContaining({ id: PLAIN, unicode_emoji: null })]);
    expect(planned.clamped).toEqual([
      {
        scope: 'roles',
        id: PLAIN,
        name: 'plain',
        field: 'unicode_emoji',
        snapshot_value: '🎉',
        restored_value: null,
        reason: 'the guild lacks the ROLE_ICONS feature: the role goes without its icon',
      },
    ]);
    // Where the guild has the feature, the icon comes back as it was.
    const kept = diff(
      snapshot,
      without(withIcon(boosted({ premium_tier: 3, features: ['ROLE_ICONS'] })), PLAIN),
    );
    expect(kept.roles_to_create).toEqual([expect.objectContaining({ id: PLAIN, unicode_emoji: '🎉' })]);
  });

  it('creates a role without its icon image where the guild lacks ROLE_ICONS, with a note', () => {
    const withIcon = (state: GuildState) => ({
      ...state,
      roles: state.roles.map((r) => (r.id === PLAIN ? { ...r, icon: 'plain-icon' } : r)),
    });
    const icons = { [PLAIN]: 'd'.repeat(64) };
    const snapshot = withIcon(boosted({ premium_tier: 3, features: [...ENHANCED, 'ROLE_ICONS'] }));
    const planned = diff(snapshot, unboosted(without(boosted(), PLAIN)), icons);
    expect(planned.roles_to_create).toEqual([expect.objectContaining({ id: PLAIN, icon: null })]);
    expect(planned.clamped).toEqual([
      {
        scope: 'roles',
        id: PLAIN,
        name: 'plain',
        field: 'icon',
        snapshot_value: 'plain-icon',
        restored_value: null,
        reason: 'the guild lacks the ROLE_ICONS feature: the role goes without its icon',
      },
    ]);
    // A live role keeping the icon loses it, said the same way.
    const updated = diff(snapshot, unboosted(withIcon(boosted())), icons);
    expect(updated.roles_to_update).toEqual([
      expect.objectContaining({
        target: expect.objectContaining({ id: PLAIN, icon: null }),
        changed_fields: ['icon'],
      }),
    ]);
    expect(updated.clamped).toEqual([expect.objectContaining({ id: PLAIN, field: 'icon' })]);
    // With the feature, the icon comes back; a snapshot keeping no role icons never notes one.
    const kept = diff(
      snapshot,
      without(withIcon(boosted({ premium_tier: 3, features: ['ROLE_ICONS'] })), PLAIN),
      icons,
    );
    expect(kept.roles_to_create).toEqual([expect.objectContaining({ id: PLAIN, icon: 'plain-icon' })]);
    expect(diff(snapshot, unboosted(without(boosted(), PLAIN))).clamped).toEqual([]);
  });

  it('restores a gradient as it was where the guild keeps enhanced colours', () => {
    const planned = diff(boosted(), without(boosted(), GRADIENT, LOUNGE));
    expect(planned.roles_to_create).toEqual([
      expect.objectContaining({ id: GRADIENT, color: '#ff0000', secondary_color: '#0000ff' }),
    ]);
    expect(planned.channels_to_create).toEqual([expect.objectContaining({ id: LOUNGE, bitrate: 384000 })]);
    expect(planned.clamped).toEqual([]);
  });

  it('hashes the clamp: the same snapshot previewed at another boost level is another diff', () => {
    const live = without(boosted(), LOUNGE);
    const atTier = (premium_tier: number) => ({ ...live, guild: { ...live.guild, premium_tier } });
    expect(restoreDiffHash(diff(boosted(), atTier(0)))).not.toBe(restoreDiffHash(diff(boosted(), atTier(2))));
    expect(restoreDiffHash(diff(boosted(), atTier(0)))).toBe(restoreDiffHash(diff(boosted(), atTier(0))));
  });
});

describe('role colours in the diff', () => {
  it('shows a change of secondary colour alone', () => {
    const live = boosted();
    live.roles = live.roles.map((r) => (r.id === GRADIENT ? { ...r, ...gradient(RED, GREEN) } : r));
    const planned = diff(boosted(), live);
    expect(planned.roles_to_update).toEqual([
      {
        current: expect.objectContaining({ id: GRADIENT, color: '#ff0000', secondary_color: '#00ff00' }),
        target: expect.objectContaining({ id: GRADIENT, color: '#ff0000', secondary_color: '#0000ff' }),
        changed_fields: ['secondary_color'],
      },
    ]);
  });

  it('compares a holographic role’s tertiary colour', () => {
    const target = boosted();
    target.roles = target.roles.map((r) =>
      r.id === PLAIN
        ? { ...r, color: HOLOGRAPHIC_ROLE_COLORS.primary_color, colors: HOLOGRAPHIC_ROLE_COLORS }
        : r,
    );
    const planned = diff(target, boosted());
    expect(planned.roles_to_update.map((u) => u.changed_fields)).toEqual([
      ['color', 'secondary_color', 'tertiary_color'],
    ]);
    expect(planned.roles_to_update[0].target).toMatchObject({ tertiary_color: '#ffc3a0' });
  });

  it('reads a snapshot written before roles kept `colors` as one colour, equal to the live role', () => {
    const live = boosted();
    live.roles = live.roles.filter((r) => r.id !== GRADIENT);
    const old = JSON.parse(
      JSON.stringify({ version: 2, snapshot_at: '2026-01-01T00:00:00.000Z', ...live }),
    ) as { roles: Record<string, unknown>[] };
    for (const stored of old.roles) delete stored.colors;
    const payload = readSnapshotPayload(old);
    expect(payload.roles.find((r) => r.id === PLAIN)?.colors).toEqual({
      primary_color: GREEN,
      secondary_color: null,
      tertiary_color: null,
    });
    expect(diff(payload, live).roles_to_update).toEqual([]);
  });
});
