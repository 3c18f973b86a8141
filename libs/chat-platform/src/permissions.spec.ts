import {
  ALL_PERMISSIONS,
  type GuildPermissionInput,
  PERMISSION,
  computeGuildPermissions,
  hasManageGuild,
  isTimedOut,
  memberPermissions,
  missingPermissions,
  TIMED_OUT_PERMISSIONS,
} from './permissions';

const GUILD = '100000000000000001';
const OWNER = '200000000000000001';
const MEMBER = '200000000000000002';
const MODERATOR_ROLE = '300000000000000001';
const MANAGER_ROLE = '300000000000000002';
const ADMIN_ROLE = '300000000000000003';

function input(
  overrides: Partial<GuildPermissionInput> & { memberRoles?: string[] } = {},
): GuildPermissionInput {
  const { memberRoles = [], ...rest } = overrides;
  return {
    ownerId: OWNER,
    everyonePermissions: (PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES).toString(),
    roles: [
      { id: GUILD, permissions: (PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES).toString() },
      { id: MODERATOR_ROLE, permissions: PERMISSION.MANAGE_ROLES.toString() },
      { id: MANAGER_ROLE, permissions: (PERMISSION.MANAGE_GUILD | PERMISSION.MANAGE_CHANNELS).toString() },
      { id: ADMIN_ROLE, permissions: PERMISSION.ADMINISTRATOR.toString() },
    ],
    member: { user: { id: MEMBER }, roles: memberRoles },
    ...rest,
  };
}

describe(computeGuildPermissions.name, () => {
  it('gives a member without roles the @everyone permissions', () => {
    expect(computeGuildPermissions(input())).toBe(PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES);
  });

  it('adds the bits of each role the member holds and ignores the others', () => {
    const permissions = computeGuildPermissions(input({ memberRoles: [MODERATOR_ROLE, MANAGER_ROLE] }));
    expect(permissions).toBe(
      PERMISSION.VIEW_CHANNEL |
        PERMISSION.SEND_MESSAGES |
        PERMISSION.MANAGE_ROLES |
        PERMISSION.MANAGE_GUILD |
        PERMISSION.MANAGE_CHANNELS,
    );
    expect(computeGuildPermissions(input({ memberRoles: [MODERATOR_ROLE] })) & PERMISSION.MANAGE_GUILD).toBe(
      0n,
    );
  });

  it('gives the owner everything, whatever their roles', () => {
    expect(
      computeGuildPermissions(input({ member: { user: { id: OWNER }, roles: [] }, everyonePermissions: 0n })),
    ).toBe(ALL_PERMISSIONS);
  });

  it('turns ADMINISTRATOR into every permission', () => {
    expect(computeGuildPermissions(input({ memberRoles: [ADMIN_ROLE] }))).toBe(ALL_PERMISSIONS);
  });

  it('honours ADMINISTRATOR granted to @everyone', () => {
    expect(computeGuildPermissions(input({ everyonePermissions: PERMISSION.ADMINISTRATOR }))).toBe(
      ALL_PERMISSIONS,
    );
  });

  it('reads permission strings beyond 53 bits exactly', () => {
    const high = 1n << 50n;
    const permissions = computeGuildPermissions(
      input({
        roles: [{ id: MODERATOR_ROLE, permissions: (high | PERMISSION.MANAGE_ROLES).toString() }],
        memberRoles: [MODERATOR_ROLE],
        everyonePermissions: '0',
      }),
    );
    expect(permissions).toBe(high | PERMISSION.MANAGE_ROLES);
  });
});

describe(hasManageGuild.name, () => {
  it('is false for a plain member and one with only MANAGE_ROLES', () => {
    expect(hasManageGuild(input())).toBe(false);
    expect(hasManageGuild(input({ memberRoles: [MODERATOR_ROLE] }))).toBe(false);
  });

  it('is true through a role with MANAGE_GUILD, ADMINISTRATOR, or ownership', () => {
    expect(hasManageGuild(input({ memberRoles: [MANAGER_ROLE] }))).toBe(true);
    expect(hasManageGuild(input({ memberRoles: [ADMIN_ROLE] }))).toBe(true);
    expect(hasManageGuild(input({ member: { user: { id: OWNER }, roles: [] } }))).toBe(true);
  });
});

const NOW = new Date('2026-11-29T08:00:00.000Z');
const LATER = '2026-11-29T09:00:00.000Z';
const EARLIER = '2026-11-29T07:00:00.000Z';

function timedOut(until: string | null, roles: string[], userId = MEMBER): GuildPermissionInput {
  return input({ member: { user: { id: userId }, roles, communication_disabled_until: until } });
}

describe(memberPermissions.name, () => {
  it('is the roles’ bits for a member who is not timed out, or whose timeout has ended', () => {
    const roles = [MODERATOR_ROLE, MANAGER_ROLE];
    const bits = computeGuildPermissions(input({ memberRoles: roles }));
    expect(memberPermissions(timedOut(null, roles), NOW)).toBe(bits);
    expect(memberPermissions(timedOut(EARLIER, roles), NOW)).toBe(bits);
  });

  it('leaves a timed-out member only VIEW_CHANNEL and READ_MESSAGE_HISTORY of what they hold', () => {
    const permissions = memberPermissions(timedOut(LATER, [MODERATOR_ROLE, MANAGER_ROLE]), NOW);
    expect(permissions).toBe(PERMISSION.VIEW_CHANNEL);
    expect(permissions & ~TIMED_OUT_PERMISSIONS).toBe(0n);
    expect(hasManageGuild(timedOut(LATER, [MANAGER_ROLE]), NOW)).toBe(false);
    expect(hasManageGuild(timedOut(EARLIER, [MANAGER_ROLE]), NOW)).toBe(true);
  });

  it('exempts the owner and ADMINISTRATOR from a timeout', () => {
    expect(memberPermissions(timedOut(LATER, [], OWNER), NOW)).toBe(ALL_PERMISSIONS);
    expect(memberPermissions(timedOut(LATER, [ADMIN_ROLE]), NOW)).toBe(ALL_PERMISSIONS);
  });
});

describe(isTimedOut.name, () => {
  it('holds only for a readable time in the future', () => {
    expect([LATER, EARLIER, null, undefined, 'not a date'].map((until) => isTimedOut(until, NOW))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe(missingPermissions.name, () => {
  it('names each required bit that is not held', () => {
    const bits = PERMISSION.MANAGE_GUILD | PERMISSION.MANAGE_CHANNELS;
    expect(missingPermissions(bits, ['MANAGE_CHANNELS', 'MANAGE_ROLES', 'BAN_MEMBERS'])).toEqual([
      'MANAGE_ROLES',
      'BAN_MEMBERS',
    ]);
    expect(missingPermissions(ALL_PERMISSIONS, ['MANAGE_ROLES', 'BAN_MEMBERS'])).toEqual([]);
  });
});
