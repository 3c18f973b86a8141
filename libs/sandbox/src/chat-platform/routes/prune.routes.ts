import { AuditLogEvent, PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import { GuildWatch } from '../guild-change';
import type { FakeGuild, FakeMember } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { type PlatformRoute, type RouteRequest, ok } from './platform-route';

const DEFAULT_PRUNE_DAYS = 7;

/**
 * Discord's "Get Guild Prune Count" and "Begin Guild Prune" (resources/guild): KICK_MEMBERS and
 * MANAGE_GUILD; `days` 1-30, 7 by default; members with roles stay unless `include_roles` names
 * them; `compute_prune_count` false answers `pruned: null`; one MEMBER_PRUNE audit-log entry with
 * `delete_member_days` and `members_removed` (resources/audit-log, "Optional Audit Entry Info").
 *
 * The members a prune removes: those holding no role, or only roles of `include_roles`; never the
 * owner, a bot, or a member the caller does not outrank. The platform prunes members inactive for
 * `days`; the fake keeps no activity, so every such member counts as inactive (undocumented here:
 * the stricter reading, as a raider's prune removes the most).
 */
function prunable(
  guild: FakeGuild,
  store: PlatformStore,
  bot: BotAuthority,
  includeRoles: string[],
): FakeMember[] {
  return guild.members.filter(
    (member) =>
      member.user_id !== guild.owner_id &&
      !store.users.get(member.user_id)?.bot &&
      member.roles.every((roleId) => includeRoles.includes(roleId)) &&
      bot.outranks(member),
  );
}

/** The prune's fields: `days` 1..30 (7 by default), `include_roles` (a list, or comma-separated in a query). */
function pruneRequest({ params, actorId }: RouteRequest, store: PlatformStore, form: FormBody) {
  const guild = store.guild(params.guild_id, actorId);
  const bot = new BotAuthority(guild, actorId);
  bot.require(PermissionFlagsBits.KickMembers);
  bot.require(PermissionFlagsBits.ManageGuild);
  const days = form.integer('days', { min: 1, max: 30 }) ?? DEFAULT_PRUNE_DAYS;
  return { guild, bot, days };
}

export const pruneRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/prune',
    handle: (request, store) => {
      const form = FormBody.query(request.query, ['days']);
      const { guild, bot } = pruneRequest(request, store, form);
      const include = (request.query.get('include_roles') ?? '').split(',').filter(Boolean);
      form.check();
      return ok({ pruned: prunable(guild, store, bot, include).length });
    },
  },
  {
    method: 'POST',
    path: '/guilds/:guild_id/prune',
    handle: (request, store) => {
      const form = FormBody.object(request.body ?? {});
      const { guild, bot, days } = pruneRequest(request, store, form);
      const include = form.snowflakes('include_roles') ?? [];
      const compute = form.boolean('compute_prune_count') ?? true;
      form.check();
      const removed = prunable(guild, store, bot, include);
      const watch = new GuildWatch(
        guild,
        removed.map((member) => ({ member: member.user_id })),
      );
      guild.members = guild.members.filter((member) => !removed.includes(member));
      // One entry for the whole prune, with its figures as strings; each member's leaving is
      // reported on the gateway only.
      const entry = {
        kind: 'entry' as const,
        guildId: guild.id,
        entry: {
          target_id: null,
          action_type: AuditLogEvent.MemberPrune,
          options: { delete_member_days: String(days), members_removed: String(removed.length) },
        },
      };
      return ok({ pruned: compute ? removed.length : null }, [entry, ...watch.changes([])]);
    },
  },
];
