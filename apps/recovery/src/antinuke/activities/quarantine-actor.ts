import { Logger } from '@nestjs/common';
import { type ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import type { GuildRegistry } from '../../guilds/guild-registry.service';
import type { QuarantineRepository } from '../quarantine/quarantine.repository';
import { planQuarantine } from '../quarantine/quarantine-plan';
import type {
  QuarantineActorInput,
  QuarantineOutcome,
  QuarantineRecord,
} from '../workflows/antinuke-contract';

const logger = new Logger('AntiNukeQuarantine');

/**
 * The quarantine: the actor's dangerous roles taken (quarantine-plan.ts), a bot actor's own role
 * stripped of its permissions, then, as `auto_action_mode` says, the actor kicked or banned. What
 * is taken is stored before it is taken, so "give back" returns exactly that. Never the guild's
 * owner, never the bot itself. Every write carries the incident in its audit-log reason.
 */
export function quarantineActivity(deps: {
  guilds: GuildRegistry;
  platform: ChatPlatformClient;
  quarantines: QuarantineRepository;
}): (input: QuarantineActorInput) => Promise<QuarantineOutcome> {
  const { guilds, platform, quarantines } = deps;
  return async ({ guildId, incidentId, actorPlatformUserId, mode }) => {
    const guild = await guilds.get(guildId);
    const platformGuildId = guild.platformGuildId;
    const reason = { reason: `AntiNuke incident ${incidentId}` };
    try {
      const [settings, bot] = await Promise.all([
        platform.getGuild(platformGuildId),
        platform.getCurrentUser(),
      ]);
      if (actorPlatformUserId === settings.owner_id) {
        return refused('The actor owns the guild; AntiNuke never acts on the owner.');
      }
      if (actorPlatformUserId === bot.id)
        return refused('The actor is this bot; AntiNuke never acts on itself.');
      const stored = await quarantines.get(guildId, incidentId);
      const [actor, state, botMember, actorBotRoleIds] = await Promise.all([
        platform.getMember(platformGuildId, actorPlatformUserId),
        platform.getGuildState(platformGuildId),
        platform.getMember(platformGuildId, bot.id),
        platform.getBotRoleIds(platformGuildId, actorPlatformUserId),
      ]);
      const plan = planQuarantine({
        platformGuildId,
        state,
        actor,
        botRoleIds: botMember.roles,
        actorBotRoleIds,
      });
      // A retry keeps the first attempt's record: it knows what the actor held before.
      const record: QuarantineRecord =
        stored ??
        (await quarantines.plan(guildId, incidentId, {
          actor_platform_user_id: actorPlatformUserId,
          roles_removed: plan.remove,
          role_permissions_stripped: plan.strip,
          member_removed: mode === 'quarantine' ? null : mode,
        }));
      const taking = new Set(record.roles_removed.map((role) => role.id));
      const writes: Promise<unknown>[] = [];
      if (actor.roles.some((id) => taking.has(id))) {
        const kept = actor.roles.filter((id) => !taking.has(id));
        writes.push(platform.setMemberRoles(platformGuildId, actorPlatformUserId, kept, reason));
      }
      for (const role of record.role_permissions_stripped) {
        const now = state.roles.find((candidate) => candidate.id === role.id);
        const target = role.set_to ?? '0';
        if (now && BigInt(now.permissions) !== BigInt(target)) {
          writes.push(platform.updateRole(platformGuildId, role.id, { permissions: target }, reason));
        }
      }
      await Promise.all(writes);
      if (record.member_removed === 'kick')
        await platform.kickMember(platformGuildId, actorPlatformUserId, reason);
      if (record.member_removed === 'ban')
        await platform.banMember(platformGuildId, actorPlatformUserId, reason);
      logger.warn(
        {
          guild_id: guildId,
          incident_id: incidentId,
          actor_platform_user_id: actorPlatformUserId,
          roles_removed: record.roles_removed.length,
          role_permissions_stripped: record.role_permissions_stripped.length,
          member_removed: record.member_removed,
        },
        'antinuke quarantined the actor',
      );
      const outranked = plan.outranked.length
        ? `Roles above the bot's highest role stay: ${plan.outranked.map((role) => role.name).join(', ')}.`
        : null;
      const taken =
        record.roles_removed.length > 0 ||
        record.role_permissions_stripped.length > 0 ||
        record.member_removed !== null;
      return {
        taken,
        error: taken ? outranked : (outranked ?? 'The actor holds no dangerous role.'),
        record,
      };
    } catch (error) {
      // The platform answers a refusal the same way twice (missing permission, member gone).
      if (isChatPlatformError(error) && !error.retryable) return refused(`${error.code}: ${error.message}`);
      throw error;
    }
  };
}

function refused(error: string): QuarantineOutcome {
  return { taken: false, error, record: null };
}
