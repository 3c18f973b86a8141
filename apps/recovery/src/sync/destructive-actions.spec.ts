import { snowflakeTime, toDestructiveAction, toMemberRolesRemoved } from './destructive-actions';
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
  ])('reads audit-log action %i as %s, with its actor, target and time', (actionType, kind) => {
    expect(toDestructiveAction(guild, entry(actionType))).toEqual({
      guild_id: guild.id,
      platform_guild_id: GUILD,
      kind,
      actor_platform_user_id: RAIDER,
      target_id: MODS,
      audit_log_entry_id: '1191168914227200000',
      at: '2024-01-01T00:00:00.000Z',
    });
  });

  it('passes over other actions (creates, updates) and entries without an actor', () => {
    for (const actionType of [10, 11, 15, 23, 30, 31])
      expect(toDestructiveAction(guild, entry(actionType))).toBeNull();
    expect(toDestructiveAction(guild, entry(12, { actorId: null }))).toBeNull();
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
