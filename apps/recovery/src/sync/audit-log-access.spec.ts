import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { mayTakeAuditLog, readsAuditLog } from './audit-log-access';
import { GuildMirror } from './guild-mirror';
import { GUILD, guildState, MEMBERS, MODS, platformRole } from './guild-state.fixture';

const BOT = '400000000000000001';

function stateWith(mods: bigint, everyone = 0n) {
  const state = guildState();
  return {
    ...state,
    roles: state.roles.map((role) =>
      role.id === MODS
        ? platformRole(MODS, { permissions: mods.toString() })
        : role.id === GUILD
          ? platformRole(GUILD, { permissions: everyone.toString() })
          : role,
    ),
  };
}

describe(mayTakeAuditLog.name, () => {
  const mirror = new GuildMirror(stateWith(P.ViewAuditLog));
  const update = (permissions: bigint, id = MODS) =>
    ({
      type: 'role_update',
      platformGuildId: GUILD,
      role: platformRole(id, { permissions: permissions.toString() }),
    }) as const;

  it('is a role that granted the audit log no longer granting it, or deleted', () => {
    expect(mayTakeAuditLog(mirror, update(0n))).toBe(true);
    expect(mayTakeAuditLog(mirror, { type: 'role_delete', platformGuildId: GUILD, roleId: MODS })).toBe(true);
  });

  it('is not a role keeping it (or gaining Administrator), nor one that never granted it', () => {
    expect(mayTakeAuditLog(mirror, update(P.ViewAuditLog | P.KickMembers))).toBe(false);
    expect(mayTakeAuditLog(mirror, update(P.Administrator))).toBe(false);
    expect(mayTakeAuditLog(mirror, update(0n, MEMBERS))).toBe(false);
    expect(mayTakeAuditLog(mirror, { type: 'role_delete', platformGuildId: GUILD, roleId: MEMBERS })).toBe(
      false,
    );
  });
});

describe(readsAuditLog.name, () => {
  it('reads through a role, @everyone, Administrator, or as the owner', () => {
    expect(readsAuditLog(stateWith(P.ViewAuditLog), BOT, [MODS])).toBe(true);
    expect(readsAuditLog(stateWith(0n, P.ViewAuditLog), BOT, [])).toBe(true);
    expect(readsAuditLog(stateWith(P.Administrator), BOT, [MODS])).toBe(true);
    expect(readsAuditLog(stateWith(0n), guildState().guild.owner_id, [])).toBe(true);
  });

  it('does not without any of them', () => {
    expect(readsAuditLog(stateWith(P.ViewAuditLog), BOT, [MEMBERS])).toBe(false);
    expect(readsAuditLog(stateWith(P.KickMembers), BOT, [MODS])).toBe(false);
  });
});
