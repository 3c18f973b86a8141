import { PermissionFlagsBits } from 'discord-api-types/v10';
import { ANTINUKE_SETTING_LIMITS } from '../antinuke/workflows/antinuke-contract';
import {
  ACTION_WEIGHTS,
  snowflakeTime,
  toDestructiveAction,
  toMemberRolesRemoved,
} from './destructive-actions';
import type { AuditLogEntry } from './guild-events';
import { GUILD, MODS } from './guild-state.fixture';

const guild = { id: '0190a000-0000-7000-8000-000000000001', platformGuildId: GUILD };
const RAIDER = '300000000000000009';

function entry(actionType: number, fields: Partial<AuditLogEntry> = {}): AuditLogEntry {
  // 2024-01-01T00:00:00Z as a snowflake: (1704067200000 - platform epoch) << 22.
  return {
    id: '1191168914227200000',
    actorId: RAIDER,
    actionType,
    targetId: MODS,
    reason: null,
    changes: [],
    ...fields,
  };
}

describe(toDestructiveAction.name, () => {
  it.each([
    [12, 'channel_delete'],
    [32, 'role_delete'],
    [22, 'member_ban'],
    [20, 'member_kick'],
    [13, 'channel_overwrite'],
    [14, 'channel_overwrite'],
    [15, 'channel_overwrite'],
    [50, 'webhook_create'],
    [28, 'bot_add'],
    [62, 'emoji_delete'],
    [92, 'sticker_delete'],
  ])('reads audit-log action %i as %s, with its actor, target, weight and time', (actionType, kind) => {
    expect(toDestructiveAction(guild, entry(actionType))).toEqual({
      guild_id: guild.id,
      platform_guild_id: GUILD,
      kind,
      weight: ACTION_WEIGHTS[kind as keyof typeof ACTION_WEIGHTS],
      actor_platform_user_id: RAIDER,
      target_id: MODS,
      audit_log_entry_id: '1191168914227200000',
      at: '2024-01-01T00:00:00.000Z',
    });
  });

  it('passes over harmless actions (creates, plain updates) and entries without an actor', () => {
    for (const actionType of [10, 11, 23, 24, 30, 31, 51, 60, 90])
      expect(toDestructiveAction(guild, entry(actionType))).toBeNull();
    expect(toDestructiveAction(guild, entry(12, { actorId: null }))).toBeNull();
  });

  describe('MEMBER_PRUNE', () => {
    // Discord's entry: no target, `options: { delete_member_days, members_removed }` as strings.
    const prune = (members_removed: string) =>
      entry(21, { targetId: null, options: { delete_member_days: '1', members_removed } });

    it('weighs one per member removed', () => {
      expect(toDestructiveAction(guild, prune('40'))).toMatchObject({ kind: 'member_prune', weight: 40 });
    });

    it('passes over a prune that removed nobody; an unreadable count weighs one', () => {
      expect(toDestructiveAction(guild, prune('0'))).toBeNull();
      expect(toDestructiveAction(guild, entry(21, { targetId: null }))).toMatchObject({ weight: 1 });
    });
  });

  describe('ROLE_UPDATE', () => {
    const SEND = PermissionFlagsBits.SendMessages;
    const permissions = (before: bigint, after: bigint, targetId = MODS) =>
      entry(31, {
        targetId,
        changes: [{ key: 'permissions', old_value: before.toString(), new_value: after.toString() }],
      });

    it.each([
      ['Administrator', PermissionFlagsBits.Administrator],
      ['Manage Guild', PermissionFlagsBits.ManageGuild],
      ['Manage Roles', PermissionFlagsBits.ManageRoles],
      ['Manage Channels', PermissionFlagsBits.ManageChannels],
      ['Ban Members', PermissionFlagsBits.BanMembers],
      ['Kick Members', PermissionFlagsBits.KickMembers],
      ['Manage Webhooks', PermissionFlagsBits.ManageWebhooks],
      ['Mention Everyone', PermissionFlagsBits.MentionEveryone],
    ])('counts giving a role %s', (_name, bit) => {
      expect(toDestructiveAction(guild, permissions(SEND, SEND | bit))).toMatchObject({
        kind: 'permission_grant',
        weight: ACTION_WEIGHTS.permission_grant,
      });
    });

    it('weighs a dangerous permission given to @everyone (the role with the guild id) enough on its own', () => {
      const grant = toDestructiveAction(
        guild,
        permissions(SEND, SEND | PermissionFlagsBits.Administrator, GUILD),
      );
      expect(grant).toMatchObject({
        kind: 'permission_grant',
        weight: ACTION_WEIGHTS.permission_grant_everyone,
      });
      expect(grant?.weight).toBeGreaterThanOrEqual(ANTINUKE_SETTING_LIMITS.threshold.max);
    });

    it('passes over harmless bits, a dangerous bit kept or taken away, and other changes', () => {
      const ban = PermissionFlagsBits.BanMembers;
      expect(toDestructiveAction(guild, permissions(0n, SEND))).toBeNull();
      expect(toDestructiveAction(guild, permissions(ban, ban | SEND))).toBeNull();
      expect(toDestructiveAction(guild, permissions(ban, 0n))).toBeNull();
      expect(
        toDestructiveAction(guild, entry(31, { changes: [{ key: 'name', old_value: 'a', new_value: 'b' }] })),
      ).toBeNull();
    });
  });

  describe('MEMBER_ROLE_UPDATE', () => {
    const MEMBER = '300000000000000001';
    const ADMINS = '100000000000000077';
    const permissionsOf = (roleId: string) =>
      roleId === ADMINS ? PermissionFlagsBits.Administrator.toString() : roleId === MODS ? '0' : null;
    const roleUpdate = (changes: AuditLogEntry['changes']) =>
      toDestructiveAction(guild, entry(25, { targetId: MEMBER, changes }), permissionsOf);

    it('counts giving a member a role that holds a dangerous permission', () => {
      expect(roleUpdate([{ key: '$add', new_value: [{ id: ADMINS, name: 'Admins' }] }])).toMatchObject({
        kind: 'dangerous_role_grant',
        weight: 1,
        target_id: MEMBER,
      });
    });

    it('passes over giving a harmless role, or one the mirror does not know', () => {
      expect(roleUpdate([{ key: '$add', new_value: [{ id: MODS, name: 'Mods' }] }])).toBeNull();
      expect(roleUpdate([{ key: '$add', new_value: [{ id: '100000000000000055', name: '?' }] }])).toBeNull();
    });

    it('counts roles taken, one per role, and adds a dangerous grant in the same entry', () => {
      const remove = {
        key: '$remove',
        new_value: [
          { id: MODS, name: 'Mods' },
          { id: '1000000000000000012', name: 'X' },
        ],
      };
      expect(roleUpdate([remove])).toMatchObject({ kind: 'member_role_remove', weight: 2 });
      expect(
        roleUpdate([remove, { key: '$add', new_value: [{ id: ADMINS, name: 'Admins' }] }]),
      ).toMatchObject({
        kind: 'dangerous_role_grant',
        weight: 3,
      });
    });
  });

  it('counts a GUILD_UPDATE that changes the vanity URL, and no other guild update', () => {
    const vanity = entry(1, {
      targetId: GUILD,
      changes: [{ key: 'vanity_url_code', old_value: 'ours', new_value: 'theirs' }],
    });
    expect(toDestructiveAction(guild, vanity)).toMatchObject({
      kind: 'vanity_url_change',
      weight: ACTION_WEIGHTS.vanity_url_change,
    });
    const renamed = entry(1, { targetId: GUILD, changes: [{ key: 'name', old_value: 'a', new_value: 'b' }] });
    expect(toDestructiveAction(guild, renamed)).toBeNull();
  });
});

describe(toMemberRolesRemoved.name, () => {
  const MEMBER = '300000000000000001';
  const roleUpdate = (changes: AuditLogEntry['changes'], fields: Partial<AuditLogEntry> = {}) =>
    entry(25, { targetId: MEMBER, changes, ...fields });

  it('reads the roles a MEMBER_ROLE_UPDATE took (its $remove), with their names, actor and time', () => {
    const removed = roleUpdate([
      { key: '$add', new_value: [{ id: '100000000000000099', name: 'Gift' }] },
      {
        key: '$remove',
        new_value: [
          { id: MODS, name: 'Mods' },
          { id: '100000000000000012', name: 'Members' },
        ],
      },
    ]);
    expect(toMemberRolesRemoved(guild, removed)).toEqual({
      guild_id: guild.id,
      platform_guild_id: GUILD,
      actor_platform_user_id: RAIDER,
      target_user_id: MEMBER,
      roles: [
        { id: MODS, name: 'Mods' },
        { id: '100000000000000012', name: 'Members' },
      ],
      audit_log_entry_id: '1191168914227200000',
      at: '2024-01-01T00:00:00.000Z',
    });
  });

  it('passes over entries that took no role, other actions, and entries without actor or member', () => {
    const remove = [{ key: '$remove', new_value: [{ id: MODS, name: 'Mods' }] }];
    expect(toMemberRolesRemoved(guild, roleUpdate([{ key: '$add', new_value: [{ id: MODS }] }]))).toBeNull();
    expect(toMemberRolesRemoved(guild, roleUpdate([]))).toBeNull();
    expect(toMemberRolesRemoved(guild, roleUpdate([{ key: '$remove', new_value: 'Mods' }]))).toBeNull();
    expect(
      toMemberRolesRemoved(guild, roleUpdate([{ key: '$remove', new_value: [{ name: 'x' }] }])),
    ).toBeNull();
    expect(toMemberRolesRemoved(guild, entry(24, { targetId: MEMBER, changes: remove }))).toBeNull();
    expect(toMemberRolesRemoved(guild, roleUpdate(remove, { actorId: null }))).toBeNull();
    expect(toMemberRolesRemoved(guild, roleUpdate(remove, { targetId: null }))).toBeNull();
  });

  it('keeps a role whose name the platform left out, with an empty name', () => {
    expect(
      toMemberRolesRemoved(guild, roleUpdate([{ key: '$remove', new_value: [{ id: MODS }] }]))?.roles,
    ).toEqual([{ id: MODS, name: '' }]);
  });
});

describe(snowflakeTime.name, () => {
  it('reads the creation time out of a snowflake', () => {
    expect(snowflakeTime('175928847299117063').toISOString()).toBe('2016-04-30T11:18:25.796Z');
  });
});
