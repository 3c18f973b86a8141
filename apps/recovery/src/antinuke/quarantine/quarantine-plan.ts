import {
  DANGEROUS_PERMISSION_BITS,
  type GuildState,
  type PlatformMember,
  grantsDangerousPermission,
} from '@lib/chat-platform';
import type {
  QuarantinedRole,
  QuarantineRecord,
  StrippedRolePermissions,
} from '../workflows/antinuke-contract';

export interface QuarantinePlan {
  /** Roles to take from the actor. */
  remove: QuarantinedRole[];
  /**
   * Roles whose permissions are cut: the actor's own integration roles (a bot) to none, and
   * @everyone to what it holds without its dangerous permissions (`set_to`).
   */
  strip: StrippedRolePermissions[];
  /** Dangerous roles the bot cannot take: at or above its highest role. */
  outranked: QuarantinedRole[];
}

export interface QuarantinePlanInput {
  /** The platform's guild id: also the id of its @everyone role. */
  platformGuildId: string;
  state: Pick<GuildState, 'roles' | 'permission_overrides'>;
  actor: PlatformMember;
  /** The roles the bot holds (its highest decides what it may act on). */
  botRoleIds: readonly string[];
  /** The actor's own integration roles (`tags.bot_id`), when the actor is a bot. */
  actorBotRoleIds: readonly string[];
}

/**
 * What the quarantine takes: each role of the actor that carries a dangerous permission, in the
 * guild or through an allow in any channel's overwrite (a role without the bit can still manage
 * the channels it is allowed to). Roles with nothing dangerous stay: the raid needs none of them,
 * and a false alarm costs the member less. A managed role cannot be taken from a member: when it
 * is the actor's own integration role (a bot), its permissions are set to none instead; someone
 * else's managed role (a booster role) is shared, and stays. The bot acts only below its highest
 * role: a dangerous role above it is reported, not taken. A dangerous permission given to
 * @everyone is cut from it as well.
 */
export function planQuarantine(input: QuarantinePlanInput): QuarantinePlan {
  const { state, actor } = input;
  const roles = new Map(state.roles.map((role) => [role.id, role]));
  const botTop = Math.max(-1, ...input.botRoleIds.map((id) => roles.get(id)?.position ?? -1));
  const dangerousInChannels = new Set(
    state.permission_overrides
      .filter((override) => override.type === 'role' && grantsDangerousPermission(override.allow))
      .map((override) => override.id),
  );
  const ownIntegration = new Set(input.actorBotRoleIds);
  const plan: QuarantinePlan = { remove: [], strip: [], outranked: [] };
  for (const roleId of actor.roles) {
    const role = roles.get(roleId);
    if (!role) continue;
    const dangerous = grantsDangerousPermission(role.permissions) || dangerousInChannels.has(role.id);
    if (!dangerous) continue;
    if (role.position >= botTop) {
      plan.outranked.push({ id: role.id, name: role.name });
    } else if (!role.managed) {
      plan.remove.push({ id: role.id, name: role.name });
    } else if (ownIntegration.has(role.id) && BigInt(role.permissions) !== 0n) {
      plan.strip.push({ id: role.id, name: role.name, permissions: role.permissions });
    }
  }
  // A dangerous permission on @everyone makes everyone a raider, the actor included, whatever
  // roles are taken from them: it goes too, and is given back like the rest.
  const everyone = roles.get(input.platformGuildId);
  if (everyone && grantsDangerousPermission(everyone.permissions)) {
    plan.strip.push({
      id: everyone.id,
      name: everyone.name,
      permissions: everyone.permissions,
      set_to: (BigInt(everyone.permissions) & ~DANGEROUS_PERMISSION_BITS).toString(),
    });
  }
  return plan;
}

/**
 * One record out of several stored for the same actor (the quarantine live sync ran at once, the
 * workflow's own, a retry's plan): every role and permission any of them took, each once. The
 * first record naming a role wins, so what is given back is what the actor held before the first
 * taking (a later plan sees the role already stripped). A kick or ban is kept once decided.
 */
export function mergeQuarantines(records: readonly QuarantineRecord[]): QuarantineRecord {
  if (records.length === 0) throw new Error('nothing to merge');
  const roles = new Map<string, QuarantinedRole>();
  const stripped = new Map<string, StrippedRolePermissions>();
  let memberRemoved: QuarantineRecord['member_removed'] = null;
  for (const record of records) {
    for (const role of record.roles_removed) if (!roles.has(role.id)) roles.set(role.id, role);
    for (const role of record.role_permissions_stripped)
      if (!stripped.has(role.id)) stripped.set(role.id, role);
    memberRemoved ??= record.member_removed;
  }
  return {
    actor_platform_user_id: records[0].actor_platform_user_id,
    roles_removed: [...roles.values()],
    role_permissions_stripped: [...stripped.values()],
    member_removed: memberRemoved,
  };
}
