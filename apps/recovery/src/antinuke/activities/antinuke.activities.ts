import { Logger } from '@nestjs/common';
import { type ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import { Counter } from 'prom-client';
import type { GuildRegistry } from '../../guilds/guild-registry.service';
import type { SnapshotService } from '../../snapshots/snapshot.service';
import { withFailureTypes } from '../../activity-failures';
import type { AntiNukeIncidentsRepository } from '../antinuke-incidents.repository';
import type { LockdownService } from '../lockdown/lockdown.service';
import type { QuarantineRepository } from '../quarantine/quarantine.repository';
import { quarantineActivity } from './quarantine-actor';
import {
  ANTINUKE_NON_RETRYABLE_FAILURES,
  type AntiNukeActivities,
  type AutoActionOutcome,
} from '../workflows/antinuke-contract';

export interface AntiNukeActivityDeps {
  guilds: GuildRegistry;
  snapshots: SnapshotService;
  platform: ChatPlatformClient;
  incidents: AntiNukeIncidentsRepository;
  quarantines: QuarantineRepository;
  lockdowns: Pick<LockdownService, 'start'>;
}

/** The activities, for the recovery worker (provided by AntiNukeModule). */
export const ANTINUKE_ACTIVITIES = Symbol('ANTINUKE_ACTIVITIES');

const incidentsOpened = new Counter({
  name: 'antinuke_incidents_opened_total',
  help: 'AntiNuke incidents opened, by action',
  labelNames: ['action'],
});
const snapshotsFailed = new Counter({
  name: 'antinuke_snapshot_failed_total',
  help: 'AntiNuke incidents opened without their snapshot (operator alert)',
});

const logger = new Logger('AntiNukeActivities');

/** The AntiNuke incident's activities over the app's services (`createActivities(deps)`). */
export function createAntiNukeActivities(deps: AntiNukeActivityDeps): AntiNukeActivities {
  const { guilds, snapshots, platform, incidents } = deps;
  const quarantine = quarantineActivity(deps);

  const activities: AntiNukeActivities = {
    /** Through the one creation routine; `antinuke` snapshots skip the slot check. */
    async takeIncidentSnapshot({ guildId, incidentId }) {
      const snapshot = await snapshots.create({
        guild: await guilds.get(guildId),
        trigger: 'antinuke',
        createdByUser: null,
        description: `AntiNuke incident ${incidentId}`,
      });
      return { snapshotId: snapshot.id };
    },

    /**
     * Takes every role the platform lets anyone take (integration roles stay: they belong to the
     * integration) in one call, with the incident in the audit-log reason. Never the guild's
     * owner, never the bot itself.
     */
    async removeActorRoles({ guildId, incidentId, actorPlatformUserId }) {
      const guild = await guilds.get(guildId);
      const platformGuildId = guild.platformGuildId;
      try {
        const [settings, bot] = await Promise.all([
          platform.getGuild(platformGuildId),
          platform.getCurrentUser(),
        ]);
        if (actorPlatformUserId === settings.owner_id) {
          return refused('The actor owns the guild; AntiNuke never acts on the owner.');
        }
        if (actorPlatformUserId === bot.id) {
          return refused('The actor is this bot; AntiNuke never acts on itself.');
        }
        const [member, roles] = await Promise.all([
          platform.getMember(platformGuildId, actorPlatformUserId),
          platform.getRoles(platformGuildId),
        ]);
        const integrationRoles = new Set(roles.filter((role) => role.managed).map((role) => role.id));
        await platform.setMemberRoles(
          platformGuildId,
          actorPlatformUserId,
          member.roles.filter((roleId) => integrationRoles.has(roleId)),
          { reason: `AntiNuke incident ${incidentId}` },
        );
        logger.warn(
          { guild_id: guildId, incident_id: incidentId, actor_platform_user_id: actorPlatformUserId },
          'antinuke auto-action removed the actor’s roles',
        );
        return { taken: true, error: null };
      } catch (error) {
        // The platform answers a refusal the same way twice (missing permission, member gone).
        if (isChatPlatformError(error) && !error.retryable) return refused(`${error.code}: ${error.message}`);
        throw error;
      }
    },

    quarantineActor: quarantine,

    /** The incident's lockdown; none when one is in force already (the owner's, or an earlier incident's). */
    async startIncidentLockdown({ guildId, incidentId, minutes }) {
      const started = await deps.lockdowns.start(guildId, { minutes, incidentId, userId: null });
      return { lockdownId: started.created ? started.lockdown.id : null };
    },

    async openIncident(input) {
      const inserted = await incidents.open(input);
      if (!inserted) return;
      incidentsOpened.inc({ action: input.burst.kind });
      const fields = {
        guild_id: input.guildId,
        incident_id: input.incidentId,
        actor_platform_user_id: input.burst.actor_platform_user_id,
        action: input.burst.kind,
        count: input.burst.count,
      };
      if (input.snapshotId === null) {
        snapshotsFailed.inc();
        // docs/behaviour.md §7.4: the incident goes on without its snapshot, and an operator is alerted.
        logger.error(
          { alert: 'antinuke_snapshot_failed', ...fields, error: input.snapshotError },
          'antinuke incident opened without a snapshot',
        );
      }
      logger.warn(
        { ...fields, snapshot_id: input.snapshotId, auto_action_taken: input.autoActionTaken },
        'antinuke incident opened',
      );
    },

    async recordIncidentTargets(input) {
      const recorded = await incidents.recordTargets(input);
      if (recorded > 0) {
        logger.warn(
          { guild_id: input.guildId, incident_id: input.incidentId, targets: recorded },
          'antinuke incident: what the actor did to members recorded',
        );
      }
    },
  };
  // Temporal sees each failure with its stable type; what no retry can change (guild gone, missing
  // permission, payload too large) is non-retryable.
  return withFailureTypes(activities, ANTINUKE_NON_RETRYABLE_FAILURES);
}

function refused(error: string): AutoActionOutcome {
  return { taken: false, error };
}
