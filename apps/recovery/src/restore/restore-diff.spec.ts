import { createHash } from 'node:crypto';
import {
  LEAST_BOT_PERMISSIONS,
  CHANNEL_TYPE,
  type GuildSettings,
  type GuildState,
  PERMISSION,
  type PermissionOverride,
  type PlatformChannel,
} from '@lib/chat-platform';
import {
  type BotStanding,
  type IdReplacement,
  ROUTE,
  type RestoreDiff,
  type RestoreScope,
  SKIP_REASON,
  SnapshotIdResolution,
  channelItem,
  computeRestoreDiff,
  describeDuration,
  estimateDuration,
  estimateRestoreCalls,
  restoreDiffHash,
  roleItem,
} from './restore-diff';
import { DEFAULT_RESTORE_SCOPES } from '@lib/contracts';
import { guildSettings, platformChannel as channel, platformRole as role } from '../sync/guild-state.fixture';

const GUILD = '1000';
const MEMBERS = '2001';
const MODS = '2002';
const ADMINS = '2003';
const BOT_ROLE = '2004';
const INFO = '3001';
const GENERAL = '3002';
const RULES = '3003';
const TALK = '3004';
const LOUNGE = '3005';
const USER = '4001';

const VIEW_AND_SEND = (PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES).toString();
const SEND = PERMISSION.SEND_MESSAGES.toString();

function category(id: string, position: number, name = `category-${id}`): PlatformChannel {
  return channel(id, { type: CHANNEL_TYPE.category, name, position, rate_limit_per_user: null });
}

function override(
  channelId: string,
  id: string,
  fields: Partial<PermissionOverride> = {},
): PermissionOverride {
  return { channel_id: channelId, id, type: 'role', allow: '0', deny: '0', ...fields };
}

function settings(): GuildSettings {
  return guildSettings(GUILD, {
    icon: 'icon-hash',
    owner_id: USER,
    afk_channel_id: LOUNGE,
    system_channel_id: GENERAL,
    rules_channel_id: RULES,
  });
}

/** A small guild, built anew on each call so a test may change its copy freely. */
function guildState(): GuildState {
  return {
    guild: settings(),
    roles: [
      role(GUILD, { name: '@everyone', position: 0, permissions: VIEW_AND_SEND }),
      role(MEMBERS, { name: 'members', position: 1, color: 0x3498db }),
      role(MODS, { name: 'mods', position: 2, permissions: PERMISSION.MANAGE_CHANNELS.toString() }),
      role(ADMINS, { name: 'admins', position: 3, permissions: PERMISSION.MANAGE_GUILD.toString() }),
      role(BOT_ROLE, {
        name: 'bot',
        position: 4,
        managed: true,
        permissions: PERMISSION.ADMINISTRATOR.toString(),
      }),
    ],
    channels: [
      category(INFO, 0, 'info'),
      category(TALK, 1, 'talk'),
      channel(GENERAL, { name: 'general', parent_id: INFO, position: 0, topic: 'hello' }),
      channel(RULES, { name: 'rules', parent_id: INFO, position: 1 }),
      channel(LOUNGE, {
        name: 'lounge',
        type: CHANNEL_TYPE.voice,
        parent_id: TALK,
        position: 0,
        rate_limit_per_user: null,
        bitrate: 64000,
        user_limit: 0,
      }),
    ],
    permission_overrides: [
      override(GENERAL, GUILD, { deny: SEND }),
      override(GENERAL, MODS, { allow: SEND }),
      override(RULES, GUILD, { deny: SEND }),
    ],
  };
}

/** The items with `id` changed by `fields`; the others as they are. */
function edit<T extends { id: string }>(items: T[], id: string, fields: Partial<T>): T[] {
  return items.map((item) => (item.id === id ? { ...item, ...fields } : item));
}

function without<T extends { id: string }>(items: T[], ...ids: string[]): T[] {
  return items.filter((item) => !ids.includes(item.id));
}

/** The items with the positions of `a` and `b` exchanged. */
function swap<T extends { id: string; position: number }>(items: T[], a: string, b: string): T[] {
  const position = new Map(items.map((item) => [item.id, item.position]));
  const swapped = new Map([
    [a, position.get(b)!],
    [b, position.get(a)!],
  ]);
  return items.map((item) => (swapped.has(item.id) ? { ...item, position: swapped.get(item.id)! } : item));
}

/** Each update as its target's id and the fields it changes. */
function changes(updates: readonly { target: { id: string }; changed_fields: readonly string[] }[]) {
  return updates.map((update) => [update.target.id, update.changed_fields]);
}

/** A bot with ADMINISTRATOR whose own (managed) role is BOT_ROLE at position 4. */
const ADMIN_BOT: BotStanding = {
  highestRolePosition: 4,
  permissions: PERMISSION.ADMINISTRATOR,
  isOwner: false,
  userId: '900',
  roleIds: [],
};

interface Case {
  target?: GuildState;
  live?: GuildState;
  scope?: readonly RestoreScope[];
  replacements?: IdReplacement[];
  bot?: BotStanding;
  /** The snapshot's kept role icon images (version 3), by role id. */
  roleIcons?: Record<string, string>;
}

function sut({
  target = guildState(),
  live = guildState(),
  scope = DEFAULT_RESTORE_SCOPES,
  replacements = [],
  bot = ADMIN_BOT,
  roleIcons,
}: Case = {}): RestoreDiff {
  return computeRestoreDiff({
    target: {
      version: roleIcons ? 3 : 2,
      snapshot_at: '2026-11-01T00:00:00.000Z',
      ...target,
      ...(roleIcons && { role_icons: roleIcons }),
    },
    live,
    scope,
    ids: new SnapshotIdResolution(live, replacements),
    bot,
  });
}

function emptyDiff(): RestoreDiff {
  return {
    roles_to_create: [],
    roles_to_update: [],
    roles_to_delete: [],
    channels_to_create: [],
    channels_to_update: [],
    channels_to_delete: [],
    overrides_to_apply: [],
    overrides_to_remove: [],
    guild_settings_diff: {},
    member_roles_to_restore: [],
    members_to_update: 0,
    members_absent: 0,
    bans_to_lift: [],
    skipped: [],
    clamped: [],
    estimated_duration: 'under 10 seconds',
  };
}

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

describe(SnapshotIdResolution.name, () => {
  const live = guildState();

  it('returns an id that exists live as it is', () => {
    const sut = new SnapshotIdResolution(live, []);
    expect(sut.resolve('role', MODS)).toBe(MODS);
    expect(sut.resolve('channel', GENERAL)).toBe(GENERAL);
    expect(sut.resolve('role', GUILD)).toBe(GUILD);
  });

  it('follows a chain of replacements to the first id that exists live', () => {
    const sut = new SnapshotIdResolution(live, [
      { kind: 'role', original_id: '2901', replacement_id: '2902' },
      { kind: 'role', original_id: '2902', replacement_id: MODS },
    ]);
    expect(sut.resolve('role', '2901')).toBe(MODS);
  });

  it('gives undefined when neither the id nor any replacement is live, and survives a cycle', () => {
    const sut = new SnapshotIdResolution(live, [
      { kind: 'channel', original_id: '3901', replacement_id: '3902' },
      { kind: 'channel', original_id: '3902', replacement_id: '3901' },
    ]);
    expect(sut.resolve('channel', '3901')).toBeUndefined();
    expect(sut.resolve('channel', '3999')).toBeUndefined();
  });

  it('learns replacements recorded after the read as live, and leaves those known at the read as they were', () => {
    const sut = new SnapshotIdResolution(live, [
      { kind: 'role', original_id: '2901', replacement_id: '2902' },
    ]);
    sut.learnRecorded([
      // Known at the read, its target gone: still unresolved.
      { kind: 'role', original_id: '2901', replacement_id: '2902' },
      // Made since: resolved, though the read did not show it.
      { kind: 'role', original_id: '2903', replacement_id: '2904' },
    ]);
    expect(sut.resolve('role', '2901')).toBeUndefined();
    expect(sut.resolve('role', '2903')).toBe('2904');
    sut.learn('channel', '3901', '3902');
    expect(sut.resolve('channel', '3901')).toBe('3902');
  });

  it('keeps role and channel replacements apart', () => {
    const sut = new SnapshotIdResolution(live, [
      { kind: 'role', original_id: '3901', replacement_id: GENERAL },
    ]);
    expect(sut.resolve('channel', '3901')).toBeUndefined();
    expect(sut.resolve('role', '3901')).toBeUndefined();
  });
});

describe(computeRestoreDiff.name, () => {
  it('finds nothing to do when the live guild equals the snapshot', () => {
    expect(sut()).toEqual(emptyDiff());
  });

  it('fills only the categories in scope', () => {
    const live = guildState();
    live.roles = without(live.roles, MEMBERS);
    live.channels = [...live.channels, channel('3100')];
    live.permission_overrides = [];
    live.guild.name = 'Renamed';

    const diff = sut({ live, scope: ['guild_settings'] });

    expect(diff).toEqual({
      ...emptyDiff(),
      guild_settings_diff: { name: { current: 'Renamed', target: 'Guild' } },
    });
  });

  describe('roles', () => {
    it('creates snapshot-only roles, updates changed ones and deletes live-only ones', () => {
      const live = guildState();
      live.roles = [
        ...edit(without(live.roles, MEMBERS), MODS, { name: 'moderators', hoist: true, color: 0xff0000 }),
        role('2100', { name: 'intruders', position: 1 }),
      ];

      const diff = sut({ live, scope: ['roles'] });

      expect(diff.roles_to_create).toEqual([roleItem(guildState().roles[1])]);
      expect(diff.roles_to_create[0]).toMatchObject({ id: MEMBERS, color: '#3498db' });
      expect(diff.roles_to_update).toEqual([
        {
          current: roleItem(live.roles.find((r) => r.id === MODS)!),
          target: roleItem(guildState().roles[2]),
          changed_fields: ['name', 'color', 'hoist'],
        },
      ]);
      expect(diff.roles_to_delete).toEqual([{ id: '2100', name: 'intruders' }]);
      expect(diff.skipped).toEqual([]);
    });

    it('compares permissions, mentionable and the emoji, not the icon of a snapshot keeping no role icons', () => {
      const live = guildState();
      live.roles = edit(live.roles, ADMINS, {
        permissions: '0',
        mentionable: true,
        unicode_emoji: '🛡️',
        icon: 'other-icon',
      });

      const [update] = sut({ live, scope: ['roles'] }).roles_to_update;

      expect(update.changed_fields).toEqual(['permissions', 'mentionable', 'unicode_emoji']);
    });

    describe('role icons, from a snapshot that keeps their images', () => {
      const DIGEST = 'a'.repeat(64);
      /** A guild with the ROLE_ICONS feature, which role icons need. */
      const iconGuild = () => {
        const state = guildState();
        state.guild.features = ['ROLE_ICONS'];
        return state;
      };
      /** The snapshot's admins have the icon `kept-icon`, whose image it holds. */
      const withIcon = () => {
        const state = iconGuild();
        state.roles = edit(state.roles, ADMINS, { icon: 'kept-icon' });
        return state;
      };

      it.each([
        ['changed', 'raider-icon'],
        ['removed', null],
      ])('puts back an icon the raider %s, shown as the icon’s change', (_how, icon) => {
        const live = withIcon();
        live.roles = edit(live.roles, ADMINS, { icon });

        const diff = sut({ target: withIcon(), live, scope: ['roles'], roleIcons: { [ADMINS]: DIGEST } });

        expect(diff.roles_to_update).toEqual([
          {
            current: expect.objectContaining({ id: ADMINS, icon }),
            target: expect.objectContaining({ id: ADMINS, icon: 'kept-icon' }),
            changed_fields: ['icon'],
          },
        ]);
        expect(diff.skipped).toEqual([]);
      });

      it('removes an icon a role did not have in the snapshot', () => {
        const live = iconGuild();
        live.roles = edit(live.roles, MODS, { icon: 'raider-icon' });

        expect(changes(sut({ live, scope: ['roles'], roleIcons: {} }).roles_to_update)).toEqual([
          [MODS, ['icon']],
        ]);
      });

      it('leaves an icon whose live hash is the snapshot’s, or the one its restore uploaded', () => {
        const live = withIcon();
        const roleIcons = { [ADMINS]: DIGEST };
        expect(sut({ target: withIcon(), live, scope: ['roles'], roleIcons }).roles_to_update).toEqual([]);

        live.roles = edit(live.roles, ADMINS, { icon: 'uploaded-icon' });
        const replacements: IdReplacement[] = [
          { kind: 'image', original_id: 'kept-icon', replacement_id: 'uploaded-icon' },
        ];
        const restored = sut({ target: withIcon(), live, scope: ['roles'], roleIcons, replacements });
        expect(restored.roles_to_update).toEqual([]);
        expect(restoreDiffHash(restored)).not.toBe(
          restoreDiffHash(sut({ target: withIcon(), live, scope: ['roles'], roleIcons })),
        );
      });

      it('creates a deleted role with its icon', () => {
        const live = iconGuild();
        live.roles = without(live.roles, ADMINS);

        const diff = sut({ target: withIcon(), live, scope: ['roles'], roleIcons: { [ADMINS]: DIGEST } });

        expect(diff.roles_to_create).toEqual([expect.objectContaining({ id: ADMINS, icon: 'kept-icon' })]);
        expect(diff.skipped).toEqual([]);
      });

      it('leaves the icon as it is, with a note, where the snapshot could not keep its image', () => {
        const live = withIcon();
        live.roles = edit(without(live.roles, MEMBERS), ADMINS, { icon: 'raider-icon' });
        const target = withIcon();
        target.roles = edit(target.roles, MEMBERS, { icon: 'members-icon' });

        const diff = sut({ target, live, scope: ['roles'], roleIcons: {} });

        expect(diff.roles_to_update).toEqual([]);
        expect(diff.roles_to_create).toEqual([expect.objectContaining({ id: MEMBERS })]);
        expect(diff.skipped).toEqual([
          { scope: 'roles', id: MEMBERS, name: 'members', reason: SKIP_REASON.roleIconNotKept },
          { scope: 'roles', id: ADMINS, name: 'admins', reason: SKIP_REASON.roleIconNotKept },
        ]);

        // Another change of the role is made all the same, without the icon.
        live.roles = edit(live.roles, ADMINS, { hoist: true });
        const other = sut({ target, live, scope: ['roles'], roleIcons: {} });
        expect(changes(other.roles_to_update)).toEqual([[ADMINS, ['hoist']]]);
        expect(other.skipped).toHaveLength(2);
      });
    });

    it('only ever updates @everyone', () => {
      const live = guildState();
      live.roles = edit(live.roles, GUILD, { permissions: '0' });
      const target = guildState();
      target.roles = without(target.roles, GUILD);

      expect(sut({ live, scope: ['roles'] }).roles_to_update).toEqual([
        expect.objectContaining({
          target: expect.objectContaining({ id: GUILD }),
          changed_fields: ['permissions'],
        }),
      ]);
      const withoutEveryone = sut({ target, scope: ['roles'] });
      expect(withoutEveryone.roles_to_delete).toEqual([]);
      expect(withoutEveryone.skipped).toEqual([]);
    });

    it('never creates @everyone, even when the live state lacks it', () => {
      const live = guildState();
      live.roles = without(live.roles, GUILD);

      expect(sut({ live, scope: ['roles'] }).roles_to_create).toEqual([]);
    });

    it('leaves roles managed by an integration alone', () => {
      const target = guildState();
      target.roles = [...target.roles, role('2200', { name: 'old bot', position: 5, managed: true })];
      const live = guildState();
      live.roles = [
        ...edit(live.roles, BOT_ROLE, { name: 'renamed bot', color: 0xffffff }),
        role('2300', { name: 'new bot', position: 5, managed: true }),
      ];

      const diff = sut({ target, live, scope: ['roles'], bot: { ...ADMIN_BOT, highestRolePosition: 6 } });

      expect(diff.roles_to_create).toEqual([]);
      expect(diff.roles_to_update).toEqual([]);
      expect(diff.roles_to_delete).toEqual([]);
      expect(diff.skipped).toEqual([
        { scope: 'roles', id: '2200', name: 'old bot', reason: SKIP_REASON.managedRole },
      ]);
    });

    it('skips updating and deleting roles at or above the bot’s highest role', () => {
      const live = guildState();
      live.roles = [
        ...edit(live.roles, ADMINS, { name: 'admins!' }),
        role('2100', { name: 'top', position: 5 }),
        role('2101', { name: 'low', position: 1 }),
      ];
      const bot = { ...ADMIN_BOT, highestRolePosition: 3 };

      const diff = sut({ live, scope: ['roles'], bot });

      expect(diff.roles_to_update).toEqual([]);
      expect(diff.roles_to_delete).toEqual([{ id: '2101', name: 'low' }]);
      expect(diff.skipped).toEqual([
        { scope: 'roles', id: ADMINS, name: 'admins', reason: SKIP_REASON.aboveBot },
        { scope: 'roles', id: '2100', name: 'top', reason: SKIP_REASON.aboveBot },
      ]);
    });

    it('puts no hierarchy limits on a bot that owns the guild', () => {
      const live = guildState();
      live.roles = [
        ...edit(live.roles, ADMINS, { name: 'admins!' }),
        role('2100', { name: 'top', position: 5 }),
      ];
      const bot: BotStanding = {
        highestRolePosition: 0,
        permissions: 0n,
        isOwner: true,
        userId: '900',
        roleIds: [],
      };

      const diff = sut({ live, scope: ['roles'], bot });

      expect(diff.roles_to_update.map((u) => u.target.id)).toEqual([ADMINS]);
      expect(diff.roles_to_delete).toEqual([{ id: '2100', name: 'top' }]);
      expect(diff.skipped).toEqual([]);
    });

    it('skips creating a role, or adding bits to one, with permissions the bot lacks', () => {
      const live = guildState();
      live.roles = edit(without(live.roles, ADMINS), MODS, { permissions: '0' });
      live.roles = edit(live.roles, MEMBERS, { permissions: PERMISSION.MANAGE_CHANNELS.toString() });
      const bot: BotStanding = { ...ADMIN_BOT, permissions: PERMISSION.MANAGE_ROLES };

      const diff = sut({ live, scope: ['roles'], bot });

      expect(diff.roles_to_create).toEqual([]);
      expect(changes(diff.roles_to_update)).toEqual([[MEMBERS, ['permissions']]]);
      expect(diff.skipped).toEqual([
        { scope: 'roles', id: MODS, name: 'mods', reason: SKIP_REASON.permissionsNotHeld },
        { scope: 'roles', id: ADMINS, name: 'admins', reason: SKIP_REASON.permissionsNotHeld },
      ]);
    });

    it('lets a bot with ADMINISTRATOR grant anything', () => {
      const live = guildState();
      live.roles = without(live.roles, ADMINS);

      expect(sut({ live, scope: ['roles'] }).roles_to_create.map((r) => r.id)).toEqual([ADMINS]);
    });

    it('does not count a deleted role as moving the roles above it', () => {
      const live = guildState();
      live.roles = without(live.roles, MEMBERS).map((r) =>
        r.id === GUILD ? r : { ...r, position: r.position - 1 },
      );

      const diff = sut({ live, scope: ['roles'], bot: { ...ADMIN_BOT, highestRolePosition: 3 } });

      expect(diff.roles_to_create.map((r) => r.id)).toEqual([MEMBERS]);
      expect(diff.roles_to_update).toEqual([]);
    });

    it('marks both roles of a swapped pair as moved', () => {
      const live = guildState();
      live.roles = swap(live.roles, MODS, ADMINS);

      const diff = sut({ live, scope: ['roles'] });

      expect(changes(diff.roles_to_update)).toEqual([
        [MODS, ['position']],
        [ADMINS, ['position']],
      ]);
    });

    it('matches a recreated role through its replacement id', () => {
      const live = guildState();
      live.roles = edit(live.roles, MODS, { id: '2999' });

      const diff = sut({
        live,
        scope: ['roles'],
        replacements: [{ kind: 'role', original_id: MODS, replacement_id: '2999' }],
      });

      expect(diff).toEqual(emptyDiff());
    });
  });

  describe('channels', () => {
    it('creates, updates and deletes channels, with snapshot ids in targets and live ids in currents', () => {
      const live = guildState();
      live.channels = [
        ...edit(without(live.channels, RULES), GENERAL, { name: 'chat', topic: null, nsfw: true }),
        channel('3100', { name: 'spam', parent_id: TALK, position: 1 }),
      ];
      live.channels = edit(live.channels, LOUNGE, { bitrate: 96000, user_limit: 5 });

      const diff = sut({ live, scope: ['channels'] });

      expect(diff.channels_to_create).toEqual([
        {
          id: RULES,
          type: CHANNEL_TYPE.text,
          name: 'rules',
          position: 1,
          parent_id: INFO,
          topic: null,
          nsfw: false,
          rate_limit_per_user: 0,
          bitrate: null,
          user_limit: null,
        },
      ]);
      expect(diff.channels_to_update.map((u) => [u.current.id, u.target.id, u.changed_fields])).toEqual([
        [GENERAL, GENERAL, ['name', 'topic', 'nsfw']],
        [LOUNGE, LOUNGE, ['bitrate', 'user_limit']],
      ]);
      expect(diff.channels_to_delete).toEqual([{ id: '3100', name: 'spam', type: CHANNEL_TYPE.text }]);
    });

    it('follows replacements for the channel and its parent', () => {
      const live = guildState();
      live.channels = edit(live.channels, INFO, { id: '3901' }).map((c) =>
        c.parent_id === INFO ? { ...c, parent_id: '3901' } : c,
      );
      live.channels = edit(live.channels, GENERAL, { id: '3902' });

      const diff = sut({
        live,
        scope: ['channels'],
        replacements: [
          { kind: 'channel', original_id: INFO, replacement_id: '3900' },
          { kind: 'channel', original_id: '3900', replacement_id: '3901' },
          { kind: 'channel', original_id: GENERAL, replacement_id: '3902' },
        ],
      });

      expect(diff).toEqual(emptyDiff());
    });

    it('re-parents children whose category is being created', () => {
      const live = guildState();
      live.channels = without(live.channels, INFO).map((c) =>
        c.parent_id === INFO ? { ...c, parent_id: null } : c,
      );

      const diff = sut({ live, scope: ['channels'] });

      expect(diff.channels_to_create.map((c) => c.id)).toEqual([INFO]);
      expect(diff.channels_to_update.map((u) => [u.target.id, u.target.parent_id, u.changed_fields])).toEqual(
        [
          [GENERAL, INFO, ['parent_id', 'position']],
          [RULES, INFO, ['parent_id', 'position']],
        ],
      );
    });

    it('compares positions among siblings only: a deleted sibling moves nothing, a swap does', () => {
      const deleted = guildState();
      deleted.channels = edit(without(deleted.channels, GENERAL), RULES, { position: 0 });
      expect(sut({ live: deleted, scope: ['channels'] }).channels_to_update).toEqual([]);

      const swapped = guildState();
      swapped.channels = swap(swapped.channels, GENERAL, RULES);
      expect(changes(sut({ live: swapped, scope: ['channels'] }).channels_to_update)).toEqual([
        [GENERAL, ['position']],
        [RULES, ['position']],
      ]);
    });

    it('orders categories among categories, without moving their children', () => {
      const live = guildState();
      live.channels = swap(live.channels, INFO, TALK);

      const diff = sut({ live, scope: ['channels'] });

      expect(changes(diff.channels_to_update)).toEqual([
        [INFO, ['position']],
        [TALK, ['position']],
      ]);
    });

    it('lists categories to create before the channels inside them', () => {
      const live = guildState();
      live.channels = [];
      live.permission_overrides = [];

      const diff = sut({ live, scope: ['channels'] });

      expect(diff.channels_to_create.map((c) => c.id)).toEqual([INFO, TALK, GENERAL, LOUNGE, RULES]);
    });
  });

  describe('permission overrides', () => {
    it('applies changed overrides and removes live ones the snapshot lacks, on snapshot channels only', () => {
      const live = guildState();
      live.channels = [...live.channels, channel('3100', { name: 'spam' })];
      live.permission_overrides = [
        override(GENERAL, GUILD, { deny: SEND }),
        override(GENERAL, MODS, { allow: VIEW_AND_SEND }),
        override(GENERAL, MEMBERS, { deny: SEND }),
        override('3100', MEMBERS, { deny: SEND }),
      ];

      const diff = sut({ live, scope: ['permission_overrides'] });

      expect(diff.overrides_to_apply).toEqual([
        {
          channel_id: GENERAL,
          channel_name: 'general',
          id: MODS,
          type: 'role',
          target_name: 'mods',
          allow: SEND,
          deny: '0',
        },
        {
          channel_id: RULES,
          channel_name: 'rules',
          id: GUILD,
          type: 'role',
          target_name: '@everyone',
          allow: '0',
          deny: SEND,
        },
      ]);
      expect(diff.overrides_to_remove).toEqual([
        {
          channel_id: GENERAL,
          channel_name: 'general',
          id: MEMBERS,
          type: 'role',
          target_name: 'members',
          allow: '0',
          deny: SEND,
        },
      ]);
    });

    it('keeps member ids as they are', () => {
      const target = guildState();
      target.permission_overrides.push(override(RULES, USER, { type: 'member', allow: SEND }));
      const live = guildState();
      live.permission_overrides.push(override(RULES, USER, { type: 'member', allow: VIEW_AND_SEND }));

      const diff = sut({ target, live, scope: ['permission_overrides'] });

      expect(diff.overrides_to_apply).toEqual([
        expect.objectContaining({ id: USER, type: 'member', target_name: null }),
      ]);
      expect(diff.overrides_to_remove).toEqual([]);
    });

    it('applies overrides on a channel this restore creates', () => {
      const live = guildState();
      live.channels = without(live.channels, GENERAL);
      live.permission_overrides = live.permission_overrides.filter((o) => o.channel_id !== GENERAL);

      const diff = sut({ live, scope: ['channels', 'permission_overrides'] });

      expect(diff.channels_to_create.map((c) => c.id)).toEqual([GENERAL]);
      expect(diff.overrides_to_apply.map((o) => [o.channel_id, o.id])).toEqual([
        [GENERAL, GUILD],
        [GENERAL, MODS],
      ]);
      expect(diff.skipped).toEqual([]);
    });

    it('shows the overrides a channel is created with when only channels are restored', () => {
      const live = guildState();
      live.channels = without(live.channels, GENERAL);
      live.roles = without(live.roles, MODS);
      // Overrides of channels that stay are not the channel scope's business.
      live.permission_overrides = [override(RULES, GUILD, { allow: SEND })];

      const diff = sut({ live, scope: ['channels'] });

      expect(diff.channels_to_create.map((c) => c.id)).toEqual([GENERAL]);
      expect(diff.overrides_to_apply).toEqual([
        {
          channel_id: GENERAL,
          channel_name: 'general',
          id: GUILD,
          type: 'role',
          target_name: '@everyone',
          allow: '0',
          deny: SEND,
        },
      ]);
      expect(diff.overrides_to_remove).toEqual([]);
      // Its override for a role that is gone and not restored cannot come with it.
      expect(diff.skipped).toEqual([
        {
          scope: 'permission_overrides',
          id: `${GENERAL}/${MODS}`,
          name: 'general / mods',
          reason: SKIP_REASON.roleNotRestored,
        },
      ]);
      expect(diff.roles_to_create).toEqual([]);
    });

    it('skips overrides of a channel that is not restored', () => {
      const live = guildState();
      live.channels = without(live.channels, GENERAL);
      live.permission_overrides = live.permission_overrides.filter((o) => o.channel_id !== GENERAL);

      const diff = sut({ live, scope: ['permission_overrides'] });

      expect(diff.overrides_to_apply).toEqual([]);
      expect(diff.skipped).toEqual([
        {
          scope: 'permission_overrides',
          id: `${GENERAL}/${GUILD}`,
          name: 'general / @everyone',
          reason: SKIP_REASON.channelNotRestored,
        },
        {
          scope: 'permission_overrides',
          id: `${GENERAL}/${MODS}`,
          name: 'general / mods',
          reason: SKIP_REASON.channelNotRestored,
        },
      ]);
    });

    it('applies overrides for a role this restore creates and skips them when the role is not restored', () => {
      const live = guildState();
      live.roles = without(live.roles, MODS);
      live.permission_overrides = live.permission_overrides.filter((o) => o.id !== MODS);

      const withRoles = sut({ live, scope: ['roles', 'permission_overrides'] });
      expect(withRoles.roles_to_create.map((r) => r.id)).toEqual([MODS]);
      expect(withRoles.overrides_to_apply.map((o) => [o.channel_id, o.id])).toEqual([[GENERAL, MODS]]);

      const withoutRoles = sut({ live, scope: ['permission_overrides'] });
      expect(withoutRoles.overrides_to_apply).toEqual([]);
      expect(withoutRoles.skipped).toEqual([
        expect.objectContaining({ id: `${GENERAL}/${MODS}`, reason: SKIP_REASON.roleNotRestored }),
      ]);
    });

    it('skips overrides for a managed role that cannot be created', () => {
      const target = guildState();
      target.roles.push(role('2200', { name: 'old bot', position: 5, managed: true }));
      target.permission_overrides.push(override(RULES, '2200', { allow: SEND }));

      const diff = sut({ target, scope: ['roles', 'permission_overrides'] });

      expect(diff.skipped).toEqual([
        expect.objectContaining({ scope: 'roles', id: '2200', reason: SKIP_REASON.managedRole }),
        expect.objectContaining({
          scope: 'permission_overrides',
          id: `${RULES}/2200`,
          reason: SKIP_REASON.roleNotRestored,
        }),
      ]);
    });

    it('matches overrides through replaced roles and channels', () => {
      const live = guildState();
      live.roles = edit(live.roles, MODS, { id: '2999' });
      live.channels = edit(live.channels, GENERAL, { id: '3999' });
      live.permission_overrides = [
        override('3999', GUILD, { deny: SEND }),
        override('3999', '2999', { allow: SEND }),
        override(RULES, GUILD, { deny: SEND }),
      ];
      const replacements: IdReplacement[] = [
        { kind: 'role', original_id: MODS, replacement_id: '2999' },
        { kind: 'channel', original_id: GENERAL, replacement_id: '3999' },
      ];

      expect(sut({ live, replacements, scope: ['permission_overrides'] })).toEqual(emptyDiff());
    });

    it('skips overrides that allow or deny bits the bot does not hold', () => {
      const target = guildState();
      target.permission_overrides.push(override(RULES, MODS, { deny: PERMISSION.MANAGE_GUILD.toString() }));
      const bot: BotStanding = {
        ...ADMIN_BOT,
        permissions: PERMISSION.MANAGE_ROLES | PERMISSION.SEND_MESSAGES | PERMISSION.VIEW_CHANNEL,
      };

      const diff = sut({ target, scope: ['permission_overrides'], bot });

      expect(diff.overrides_to_apply).toEqual([]);
      expect(diff.skipped).toEqual([
        expect.objectContaining({
          id: `${RULES}/${MODS}`,
          reason: SKIP_REASON.permissionsNotHeldInChannel,
        }),
      ]);
    });

    describe('with the bot at the least permissions', () => {
      const invited: BotStanding = {
        highestRolePosition: 4,
        permissions: LEAST_BOT_PERMISSIONS | BigInt(VIEW_AND_SEND),
        isOwner: false,
        userId: '900',
        roleIds: [BOT_ROLE],
      };
      const manageRoles = PERMISSION.MANAGE_ROLES.toString();

      it('skips an override that sets MANAGE_ROLES, unless an override of that channel allows the bot it', () => {
        const target = guildState();
        target.permission_overrides.push(override(RULES, MODS, { allow: manageRoles }));

        const refused = sut({ target, scope: ['permission_overrides'], bot: invited });
        expect(refused.overrides_to_apply).toEqual([]);
        expect(refused.skipped).toEqual([
          expect.objectContaining({ id: `${RULES}/${MODS}`, reason: SKIP_REASON.manageRolesInOverride }),
        ]);

        const live = guildState();
        live.permission_overrides.push(override(RULES, BOT_ROLE, { allow: manageRoles }));
        target.permission_overrides.push(override(RULES, BOT_ROLE, { allow: manageRoles }));
        const allowed = sut({ target, live, scope: ['permission_overrides'], bot: invited });
        expect(allowed.skipped).toEqual([]);
        expect(allowed.overrides_to_apply).toEqual([
          expect.objectContaining({ channel_id: RULES, id: MODS }),
        ]);
      });

      it('skips a MANAGE_ROLES override of a channel it creates, and one in a channel it cannot see', () => {
        const target = guildState();
        target.permission_overrides.push(override(GENERAL, MEMBERS, { allow: manageRoles }));
        target.permission_overrides.push(override(RULES, MEMBERS, { allow: SEND }));
        const live = guildState();
        live.channels = without(live.channels, GENERAL);
        live.permission_overrides = [
          override(RULES, GUILD, { deny: (PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES).toString() }),
        ];

        const diff = sut({ target, live, scope: ['channels', 'permission_overrides'], bot: invited });

        expect(diff.skipped).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              id: `${GENERAL}/${MEMBERS}`,
              reason: SKIP_REASON.manageRolesInOverride,
            }),
            expect.objectContaining({ id: `${RULES}/${MEMBERS}`, reason: SKIP_REASON.channelNotVisible }),
          ]),
        );
        expect(diff.overrides_to_apply.map((o) => `${o.channel_id}/${o.id}`)).not.toContain(
          `${GENERAL}/${MEMBERS}`,
        );
      });

      it('leaves an override it could not have set, rather than removing it', () => {
        const live = guildState();
        live.permission_overrides.push(
          override(GENERAL, MEMBERS, { deny: PERMISSION.ADMINISTRATOR.toString() }),
          override(GENERAL, ADMINS, { deny: PERMISSION.VIEW_CHANNEL.toString() }),
        );

        const diff = sut({ live, scope: ['permission_overrides'], bot: invited });

        expect(diff.overrides_to_remove).toEqual([
          expect.objectContaining({ channel_id: GENERAL, id: ADMINS }),
        ]);
        expect(diff.skipped).toEqual([
          expect.objectContaining({
            id: `${GENERAL}/${MEMBERS}`,
            reason: SKIP_REASON.permissionsNotHeldInChannel,
          }),
        ]);
      });
    });
  });

  describe('guild settings', () => {
    it('lists changed settings with the live value as current and the snapshot value as target', () => {
      const live = guildState();
      live.guild = {
        ...live.guild,
        name: 'Other',
        afk_timeout: 60,
        description: 'new',
        icon: 'other-icon',
        owner_id: '4999',
      };

      expect(sut({ live, scope: ['guild_settings'] }).guild_settings_diff).toEqual({
        name: { current: 'Other', target: 'Guild' },
        description: { current: 'new', target: null },
        afk_timeout: { current: 60, target: 300 },
      });
    });

    it('compares channel settings through the resolved channel ids', () => {
      const live = guildState();
      live.channels = edit(without(live.channels, RULES), GENERAL, { id: '3999' });
      live.guild = { ...live.guild, system_channel_id: '3999', rules_channel_id: null };

      const diff = sut({
        live,
        scope: ['guild_settings'],
        replacements: [{ kind: 'channel', original_id: GENERAL, replacement_id: '3999' }],
      });

      expect(diff.guild_settings_diff).toEqual({ rules_channel_id: { current: null, target: RULES } });
    });
  });

  it('gives byte-identical diffs for equal inputs, whatever the order of the live lists', () => {
    const live = guildState();
    live.roles = [...without(live.roles, MEMBERS), role('2100'), role('2011', { position: 1 })].reverse();
    live.channels = [...without(live.channels, RULES), channel('3100'), channel('3011')].reverse();
    live.permission_overrides = [...live.permission_overrides, override(GENERAL, ADMINS)].reverse();
    const reordered = structuredClone(live);
    reordered.roles.reverse();
    reordered.channels.reverse();
    reordered.permission_overrides.reverse();

    expect(JSON.stringify(sut({ live: reordered }))).toBe(JSON.stringify(sut({ live })));
    expect(sut({ live }).roles_to_delete.map((r) => r.id)).toEqual(['2011', '2100']);
  });

  it('describes its own duration', () => {
    const live = guildState();
    live.roles = without(live.roles, MEMBERS, MODS);

    const diff = sut({ live });

    expect(diff.estimated_duration).toBe(estimateDuration(diff));
  });
});

describe(restoreDiffHash.name, () => {
  it('is sha256: and 64 hex digits', () => {
    expect(restoreDiffHash(sut())).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('hashes the RFC 8785 form: sorted keys, no whitespace, no estimated_duration', () => {
    const diff = emptyDiff();
    diff.roles_to_create = [roleItem(role(MEMBERS, { name: 'members', color: 0xff }))];

    expect(restoreDiffHash(diff)).toBe(
      sha256(
        '{"bans_to_lift":[],"channels_to_create":[],"channels_to_delete":[],"channels_to_update":[],' +
          '"clamped":[],"guild_settings_diff":{},"member_roles_to_restore":[],' +
          '"overrides_to_apply":[],"overrides_to_remove":[],"roles_to_create":[{"color":"#0000ff","hoist":false,' +
          '"icon":null,"id":"2001","managed":false,"mentionable":false,"name":"members","permissions":"0","position":1,' +
          '"secondary_color":null,"tertiary_color":null,"unicode_emoji":null}],"roles_to_delete":[],' +
          '"roles_to_update":[],"skipped":[]}',
      ),
    );
  });

  it('holds while members come, go and rename, and changes with the roles given back or the bans lifted', () => {
    const diff = emptyDiff();
    diff.member_roles_to_restore = [{ role_id: MODS, role_name: 'mods', members: 3, sample: ['ann'] }];
    diff.bans_to_lift = [{ user_id: USER, name: 'raided', reason: 'raid' }];
    const hash = restoreDiffHash(diff);

    const busier = structuredClone(diff);
    busier.member_roles_to_restore[0] = { ...busier.member_roles_to_restore[0], members: 4, sample: ['bob'] };
    busier.members_to_update = 4;
    busier.members_absent = 7;
    busier.bans_to_lift[0] = { ...busier.bans_to_lift[0], name: 'renamed' };
    expect(restoreDiffHash(busier)).toBe(hash);

    const moreRoles = structuredClone(diff);
    moreRoles.member_roles_to_restore.push({ role_id: ADMINS, role_name: 'admins', members: 1, sample: [] });
    expect(restoreDiffHash(moreRoles)).not.toBe(hash);
    const moreBans = structuredClone(diff);
    moreBans.bans_to_lift.push({ user_id: '4002', name: 'other', reason: null });
    expect(restoreDiffHash(moreBans)).not.toBe(hash);
  });

  it('is equal for diffs of equal inputs, whatever their key order', () => {
    const live = guildState();
    live.roles = without(live.roles, MEMBERS);
    const diff = sut({ live });
    const reversedKeys = Object.fromEntries(Object.entries(diff).reverse()) as unknown as RestoreDiff;

    expect(restoreDiffHash(sut({ live: structuredClone(live) }))).toBe(restoreDiffHash(diff));
    expect(restoreDiffHash(reversedKeys)).toBe(restoreDiffHash(diff));
  });

  it('ignores estimated_duration', () => {
    expect(restoreDiffHash({ ...emptyDiff(), estimated_duration: 'about 9 minutes' })).toBe(
      restoreDiffHash(emptyDiff()),
    );
  });

  it('changes when anything else in the diff changes', () => {
    const live = guildState();
    live.roles = edit(without(live.roles, MEMBERS), MODS, { name: 'moderators' });
    live.guild.name = 'Other';
    const base = sut({ live });
    const changes: ((diff: RestoreDiff) => void)[] = [
      (d) => (d.roles_to_create[0].name = 'Members'),
      (d) => (d.roles_to_update[0].current.hoist = true),
      (d) => d.roles_to_update[0].changed_fields.push('position'),
      (d) => d.roles_to_delete.push({ id: '2100', name: 'x' }),
      (d) => d.channels_to_delete.push({ id: '3100', name: 'x', type: 0 }),
      (d) => (d.guild_settings_diff.name = { current: 'Other', target: 'guild' }),
      (d) => d.skipped.push({ scope: 'roles', id: '2100', name: 'x', reason: 'y' }),
      (d) => d.roles_to_create.reverse().push(roleItem(role('2100'))),
    ];

    const hashes = changes.map((change) => {
      const copy = structuredClone(base);
      change(copy);
      return restoreDiffHash(copy);
    });

    expect(new Set([restoreDiffHash(base), ...hashes]).size).toBe(changes.length + 1);
  });

  it('changes when the live guild changes', () => {
    const live = guildState();
    live.roles = without(live.roles, MEMBERS);
    const before = restoreDiffHash(sut({ live }));
    live.channels = edit(live.channels, GENERAL, { topic: 'changed' });

    expect(restoreDiffHash(sut({ live }))).not.toBe(before);
  });
});

describe(estimateRestoreCalls.name, () => {
  const update = <T extends { id: string }>(item: T, changed_fields: string[]) => ({
    current: item,
    target: item,
    changed_fields,
  });
  const override = (channelId: string, id: string) => ({
    channel_id: channelId,
    channel_name: 'c',
    id,
    type: 'role' as const,
    target_name: 'r',
    allow: '0',
    deny: '0',
  });
  const item = (id: string) => channelItem(channel(id));

  it('counts nothing for an empty diff', () => {
    expect(estimateRestoreCalls(emptyDiff())).toEqual({ calls: 0, perRoute: {} });
  });

  it('counts each write, one batched reorder per kind and four reads per step with work', () => {
    const diff: RestoreDiff = {
      ...emptyDiff(),
      roles_to_create: [roleItem(role('2101')), roleItem(role('2102'))],
      roles_to_update: [update(roleItem(role('2103')), ['position'])],
      roles_to_delete: [{ id: '2104', name: 'x' }],
      channels_to_create: [item('3101')],
      channels_to_update: [update(item('3102'), ['name']), update(item('3103'), ['topic'])],
      channels_to_delete: [{ id: '3104', name: 'x', type: 0 }],
      overrides_to_apply: [override('3105', '2101'), override('3105', '2102')],
      overrides_to_remove: [override('3105', '2103')],
      guild_settings_diff: { name: { current: 'a', target: 'b' } },
    };

    expect(estimateRestoreCalls(diff)).toEqual({
      calls: 42,
      perRoute: {
        [ROUTE.roleCollection]: 3,
        [ROUTE.roleUpdate]: 1,
        [ROUTE.roleDelete]: 1,
        [ROUTE.channelCreate]: 1,
        [ROUTE.channelPositions]: 1,
        'PATCH /channels/3102': 1,
        'PATCH /channels/3103': 1,
        'DELETE /channels/3104': 1,
        'PUT|DELETE /channels/3105/permissions/:id': 3,
        [ROUTE.guildSettings]: 1,
        'GET /guilds/:id': 7,
        'GET /guilds/:id/roles': 7,
        'GET /guilds/:id/channels': 7,
        'GET /guilds/:id/members/:id': 7,
      },
    });
  });

  it('counts the uploads of emojis and stickers on their own buckets, and one guild update for images', () => {
    const emoji = (id: string) => ({ id, name: `e${id}`, animated: false, roles: [] });
    const sticker = (id: string) => ({ id, name: `s${id}`, description: null, tags: 't', format_type: 1 });
    const diff: RestoreDiff = {
      ...emptyDiff(),
      emojis_to_create: [emoji('1'), emoji('2')],
      emojis_to_delete: [emoji('3')],
      stickers_to_create: [sticker('4')],
      guild_images_to_set: [
        { slot: 'icon', current: 'a', target: 'b' },
        { slot: 'banner', current: 'c', target: null },
      ],
    };
    const { perRoute } = estimateRestoreCalls(diff);
    expect(perRoute[ROUTE.emojiCreate]).toBe(2);
    expect(perRoute[ROUTE.emojiChange]).toBe(1);
    expect(perRoute[ROUTE.stickerCreate]).toBe(1);
    expect(perRoute[ROUTE.guildSettings]).toBe(1);
  });

  it('makes no reorder call when nothing is created or moved', () => {
    const diff: RestoreDiff = {
      ...emptyDiff(),
      roles_to_update: [update(roleItem(role('2103')), ['name'])],
      channels_to_update: [update(item('3102'), ['name'])],
    };

    const { perRoute } = estimateRestoreCalls(diff);

    expect(perRoute[ROUTE.roleCollection]).toBeUndefined();
    expect(perRoute[ROUTE.channelPositions]).toBeUndefined();
  });
});

describe(estimateDuration.name, () => {
  const roles = (count: number) => Array.from({ length: count }, (_, i) => roleItem(role(String(5000 + i))));
  const updates = (count: number) =>
    roles(count).map((item) => ({ current: item, target: item, changed_fields: ['name'] }));

  it('says under 10 seconds for an empty diff', () => {
    expect(estimateDuration(emptyDiff())).toBe('under 10 seconds');
  });

  it('is bound by the busiest bucket at 5 requests per second', () => {
    // 100 creates and the reorder share one bucket: 101 / 5 = 20.2 s.
    expect(estimateDuration({ ...emptyDiff(), roles_to_create: roles(100) })).toBe('about 21 seconds');
    // 1000 updates in one bucket: 200 s.
    expect(estimateDuration({ ...emptyDiff(), roles_to_update: updates(1000) })).toBe('about 4 minutes');
  });

  it('is bound by the global 50 requests per second when the calls spread over many buckets', () => {
    const channels = Array.from({ length: 1000 }, (_, i) => channelItem(channel(String(6000 + i))));
    const diff = {
      ...emptyDiff(),
      channels_to_update: channels.map((c) => ({ current: c, target: c, changed_fields: ['name'] })),
    };
    // 1000 writes + 4 reads over 1000 per-channel buckets: 1004 / 50 = 20.08 s.
    expect(estimateDuration(diff)).toBe('about 21 seconds');
  });

  it("adds the wait for the platform's role creation quota when earlier restores spent it", () => {
    const diff = { ...emptyDiff(), roles_to_create: roles(100) };
    // 200 of 250 spent: 50 now, the other 50 after the 48-hour window.
    expect(estimateDuration(diff, { roles: 200, channels: 0 })).toBe(
      "about 2 days, most of it waiting for the platform's role creation quota",
    );
    expect(estimateDuration(diff, { roles: 150, channels: 0 })).toBe('about 21 seconds');
  });

  it("adds a window per quota's worth of channels past the channel creation quota", () => {
    const channels = Array.from({ length: 400 }, (_, i) => channelItem(channel(String(6000 + i))));
    const diff = { ...emptyDiff(), channels_to_create: channels };
    // 300 spent + 400: 200 past the quota of 500, one more window of 48 hours.
    expect(estimateDuration(diff, { roles: 0, channels: 300 })).toBe(
      "about 2 days, most of it waiting for the platform's channel creation quota",
    );
  });
});

describe(describeDuration.name, () => {
  it.each([
    [0, 'under 10 seconds'],
    [8.9, 'under 10 seconds'],
    [9.2, 'about 10 seconds'],
    [45, 'about 45 seconds'],
    [59.5, 'about 1 minute'],
    [60, 'about 1 minute'],
    [61, 'about 2 minutes'],
    [600, 'about 10 minutes'],
    [5_340, 'about 89 minutes'],
    [5_400, 'about 2 hours'],
    [47 * 3_600, 'about 47 hours'],
    [48 * 3_600 + 20, 'about 2 days'],
    [4 * 24 * 3_600, 'about 4 days'],
  ])('renders %p seconds as %p', (seconds, text) => {
    expect(describeDuration(seconds)).toBe(text);
  });
});
