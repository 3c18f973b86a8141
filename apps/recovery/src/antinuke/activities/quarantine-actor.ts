import { Logger } from '@nestjs/common';
import { type ChatPlatformClient, type GuildState, isChatPlatformError } from '@lib/chat-platform';
import type { GuildRegistry } from '../../guilds/guild-registry.service';
import type { QuarantineRepository } from '../quarantine/quarantine.repository';
import { planQuarantine } from '../quarantine/quarantine-plan';
import type {
  QuarantineActorInput,
  QuarantineOutcome,
  QuarantineRecord,
} from '../workflows/antinuke-contract';

const logger = new Logger('AntiNukeQuarantine');

/** What the caller already knows of the guild, so the quarantine need not ask the platform. */
export interface KnownGuild {
  platformGuildId?: string;
  /** The bot's own user id (live sync has it from the gateway's READY). */
  botUserId?: string;
  /** The guild's roles, overwrites and settings (owner included), from live sync's mirror. */
  state?: GuildState | null;
}

export type ContainActor = (
  input: QuarantineActorInput,
  how: { adopt: boolean; known?: KnownGuild },
) => Promise<QuarantineOutcome>;

/**
 * The quarantine: the actor's dangerous roles taken (quarantine-plan.ts), a bot actor's own role
 * stripped of its permissions, then, as `auto_action_mode` says, the actor kicked or banned. What
 * is taken is stored before it is taken (QuarantineRepository.store), so "give back" returns
 * exactly that. Never the guild's owner, never the bot itself. Every write carries the incident in
 * its audit-log reason.
 *
 * The reads run at once: the actor and the bot as members, and the guild (owner, roles,
 * overwrites) unless the caller knows it; the bot's user id is asked for once per process. Live
 * sync runs this the moment an actor crosses the threshold (`adopt` false), the workflow's
 * activity after it (`adopt` true): whichever comes second finds the roles gone and the record
 * stored, and takes nothing twice.
 */
export function containActor(deps: {
  guilds: GuildRegistry;
  platform: ChatPlatformClient;
  quarantines: QuarantineRepository;
}): ContainActor {
  const { guilds, platform, quarantines } = deps;
  let botUser: Promise<string> | undefined;
  const botUserId = (): Promise<string> => {
    botUser ??= platform.getCurrentUser().then(
      (user) => user.id,
      (error: unknown) => {
        botUser = undefined;
        throw error;
      },
    );
    return botUser;
  };
  return async ({ guildId, incidentId, actorPlatformUserId, mode }, { adopt, known = {} }) => {
    const reason = { reason: `AntiNuke incident ${incidentId}` };
    try {
      const platformGuildId = known.platformGuildId ?? (await guilds.get(guildId)).platformGuildId;
      const botId = known.botUserId ?? (await botUserId());
      if (actorPlatformUserId === botId)
        return refused('The actor is this bot; AntiNuke never acts on itself.');
      let gone: unknown = null;
      const [ownerId, actor, botMember, state] = await Promise.all([
        known.state ? known.state.guild.owner_id : platform.getGuild(platformGuildId).then((g) => g.owner_id),
        platform.getMember(platformGuildId, actorPlatformUserId).catch((error: unknown) => {
          // Not a member any more: live sync's quarantine may have kicked or banned them already.
          if (!adopt || !isChatPlatformError(error) || error.code !== 'NotFound') throw error;
          gone = error;
          return null;
        }),
        platform.getMember(platformGuildId, botId),
        known.state ?? platform.getGuildState(platformGuildId),
      ]);
      if (actorPlatformUserId === ownerId) {
        return refused('The actor owns the guild; AntiNuke never acts on the owner.');
      }
      if (!actor) {
        // What was taken from them before they went is this incident's; there is nothing left to take.
        const adopted = await quarantines.store(
          guildId,
          {
            actor_platform_user_id: actorPlatformUserId,
            roles_removed: [],
            role_permissions_stripped: [],
            member_removed: null,
          },
          { incidentId, adopt, onlyIfOpen: true },
        );
        if (!adopted) throw gone;
        const took = tookAnything(adopted);
        return {
          taken: took,
          error: took ? null : 'The actor holds no dangerous role.',
          record: toRecord(adopted),
        };
      }
      // Only a bot holds an integration's own role: the roles' tags are read only for an actor holding a managed one.
      const managed = new Set(state.roles.filter((role) => role.managed).map((role) => role.id));
      const actorBotRoleIds = actor.roles.some((id) => managed.has(id))
        ? await platform.getBotRoleIds(platformGuildId, actorPlatformUserId)
        : [];
      const plan = planQuarantine({
        platformGuildId,
        state,
        actor,
        botRoleIds: botMember.roles,
        actorBotRoleIds,
      });
      const record = await quarantines.store(
        guildId,
        {
          actor_platform_user_id: actorPlatformUserId,
          roles_removed: plan.remove,
          role_permissions_stripped: plan.strip,
          member_removed: mode === 'quarantine' ? null : mode,
        },
        { incidentId, adopt },
      );
      if (!record) throw new Error('the quarantine record was not stored');
      if (record.released_at) {
        // Given back already (a retry after the owner's "give back"): nothing is taken again.
        return { taken: false, error: 'Given back already.', record };
      }
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
      // The other quarantine of the actor may have removed them a moment ago: gone is what was wanted.
      if (record.member_removed === 'kick')
        await platform.kickMember(platformGuildId, actorPlatformUserId, reason).catch(unlessGone);
      if (record.member_removed === 'ban')
        await platform.banMember(platformGuildId, actorPlatformUserId, reason).catch(unlessGone);
      logger.warn(
        {
          guild_id: guildId,
          incident_id: record.incident_id,
          actor_platform_user_id: actorPlatformUserId,
          roles_removed: record.roles_removed.length,
          role_permissions_stripped: record.role_permissions_stripped.length,
          member_removed: record.member_removed,
          by: adopt ? 'workflow' : 'live_sync',
        },
        'antinuke quarantined the actor',
      );
      const outranked = plan.outranked.length
        ? `Roles above the bot's highest role stay: ${plan.outranked.map((role) => role.name).join(', ')}.`
        : null;
      const taken = tookAnything(record);
      return {
        taken,
        error: taken ? outranked : (outranked ?? 'The actor holds no dangerous role.'),
        record: toRecord(record),
      };
    } catch (error) {
      // The platform answers a refusal the same way twice (missing permission, member gone).
      if (isChatPlatformError(error) && !error.retryable) return refused(`${error.code}: ${error.message}`);
      throw error;
    }
  };
}

/** The workflow's activity: the quarantine under the incident's id, adopting what live sync took. */
export function quarantineActivity(deps: {
  guilds: GuildRegistry;
  platform: ChatPlatformClient;
  quarantines: QuarantineRepository;
}): (input: QuarantineActorInput) => Promise<QuarantineOutcome> {
  const contain = containActor(deps);
  return (input) => contain(input, { adopt: true });
}

function unlessGone(error: unknown): void {
  if (isChatPlatformError(error) && error.code === 'NotFound') return;
  throw error;
}

function tookAnything(record: QuarantineRecord): boolean {
  return (
    record.roles_removed.length > 0 ||
    record.role_permissions_stripped.length > 0 ||
    record.member_removed !== null
  );
}

function toRecord(stored: QuarantineRecord): QuarantineRecord {
  return {
    actor_platform_user_id: stored.actor_platform_user_id,
    roles_removed: stored.roles_removed,
    role_permissions_stripped: stored.role_permissions_stripped,
    member_removed: stored.member_removed,
  };
}

function refused(error: string): QuarantineOutcome {
  return { taken: false, error, record: null };
}
