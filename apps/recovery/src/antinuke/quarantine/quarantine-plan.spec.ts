import type { PlatformRole } from '@lib/chat-platform';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { platformRole } from '../../sync/guild-state.fixture';
import { mergeQuarantines, planQuarantine } from './quarantine-plan';

function role(id: string, position: number, permissions: bigint, managed = false): PlatformRole {
  return platformRole(id, { name: `role-${id}`, position, permissions: permissions.toString(), managed });
}

const roles = [
  role('admin', 5, P.Administrator),
  role('mod', 4, P.KickMembers | P.ViewAuditLog),
  role('member', 1, P.SendMessages | P.ViewChannel),
  role('helper', 2, P.SendMessages),
  role('raider-bot', 3, P.ManageChannels | P.BanMembers, true),
  role('booster', 2, P.MentionEveryone, true),
  role('bot', 8, P.Administrator, true),
  role('owner-top', 9, P.ManageGuild),
];

function plan(
  actorRoles: string[],
  overrides: { id: string; allow: bigint }[] = [],
  actorBotRoleIds: string[] = [],
  extraRoles: PlatformRole[] = [],
) {
  return planQuarantine({
    platformGuildId: 'guild',
    state: {
      roles: [...roles, ...extraRoles],
      permission_overrides: overrides.map((o) => ({
        channel_id: 'c1',
        id: o.id,
        type: 'role',
        allow: o.allow.toString(),
        deny: '0',
      })),
    },
    actor: {
      user: { id: 'actor', username: 'a', global_name: null, bot: false },
      roles: actorRoles,
      nick: null,
    },
    botRoleIds: ['bot'],
    actorBotRoleIds,
  });
}

describe(planQuarantine.name, () => {
  it('takes each role with a dangerous permission and leaves the others', () => {
    expect(plan(['admin', 'mod', 'member', 'helper'])).toEqual({
      remove: [
        { id: 'admin', name: 'role-admin' },
        { id: 'mod', name: 'role-mod' },
      ],
      strip: [],
      outranked: [],
    });
  });

  it('takes a role that is dangerous only through a channel overwrite', () => {
    expect(plan(['helper'], [{ id: 'helper', allow: P.ManageWebhooks }]).remove).toEqual([
      { id: 'helper', name: 'role-helper' },
    ]);
    expect(plan(['helper'], [{ id: 'helper', allow: P.SendMessages }]).remove).toEqual([]);
  });

  it('strips the permissions of a bot actor’s own role, never a shared managed role', () => {
    expect(plan(['raider-bot', 'booster'], [], ['raider-bot'])).toEqual({
      remove: [],
      strip: [
        {
          id: 'raider-bot',
          name: 'role-raider-bot',
          permissions: (P.ManageChannels | P.BanMembers).toString(),
        },
      ],
      outranked: [],
    });
  });

  it('reports the dangerous roles at or above the bot’s highest, which it cannot take', () => {
    expect(plan(['owner-top', 'admin'])).toMatchObject({
      remove: [{ id: 'admin' }],
      outranked: [{ id: 'owner-top', name: 'role-owner-top' }],
    });
  });

  it('cuts a dangerous permission given to @everyone, keeping the rest of what it holds', () => {
    const everyone = role('guild', 0, P.Administrator | P.ViewChannel | P.SendMessages);
    expect(plan(['member'], [], [], [everyone]).strip).toEqual([
      {
        id: 'guild',
        name: 'role-guild',
        permissions: (P.Administrator | P.ViewChannel | P.SendMessages).toString(),
        set_to: (P.ViewChannel | P.SendMessages).toString(),
      },
    ]);
    expect(plan(['member'], [], [], [role('guild', 0, P.ViewChannel)]).strip).toEqual([]);
  });
});

describe(mergeQuarantines.name, () => {
  const admin = { id: 'admin', name: 'Admin' };
  const mod = { id: 'mod', name: 'Mod' };

  it('keeps every role and permission taken once, as the first record to take it says', () => {
    const merged = mergeQuarantines([
      {
        actor_platform_user_id: 'raider',
        roles_removed: [admin],
        role_permissions_stripped: [{ id: 'guild', name: '@everyone', permissions: '8', set_to: '0' }],
        member_removed: null,
      },
      {
        actor_platform_user_id: 'raider',
        roles_removed: [admin, mod],
        // Seen after the first quarantine cut it: what it held before is the first record's word.
        role_permissions_stripped: [{ id: 'guild', name: '@everyone', permissions: '0', set_to: '0' }],
        member_removed: 'kick',
      },
    ]);
    expect(merged).toEqual({
      actor_platform_user_id: 'raider',
      roles_removed: [admin, mod],
      role_permissions_stripped: [{ id: 'guild', name: '@everyone', permissions: '8', set_to: '0' }],
      member_removed: 'kick',
    });
  });

  it('keeps a kick or ban once decided, and an empty plan changes nothing', () => {
    const banned = {
      actor_platform_user_id: 'raider',
      roles_removed: [admin],
      role_permissions_stripped: [],
      member_removed: 'ban' as const,
    };
    const empty = { ...banned, roles_removed: [], member_removed: null };
    expect(mergeQuarantines([banned, empty])).toEqual(banned);
    expect(() => mergeQuarantines([])).toThrow();
  });
});
