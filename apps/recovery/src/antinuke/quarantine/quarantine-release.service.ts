import { Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import { GuildRegistry } from '../../guilds/guild-registry.service';
import { QuarantineRepository, type ReleaseResult, type StoredQuarantine } from './quarantine.repository';
import { AntiNukeErrors } from '../antinuke.errors';

/**
 * "Give back": returns to the actor exactly what their incident's quarantine took, the roles and a
 * bot role's permissions (those granted since are kept). Idempotent: a second call answers what the
 * first did. A role deleted since, or a member who left (or was kicked or banned), cannot get
 * anything back: each such item is listed with its reason.
 */
@Injectable()
export class QuarantineReleaseService {
  private readonly logger = new Logger(QuarantineReleaseService.name);

  constructor(
    private readonly quarantines: QuarantineRepository,
    private readonly guilds: GuildRegistry,
    private readonly platform: ChatPlatformClient,
  ) {}

  async release(guildId: string, incidentId: string, userId: string): Promise<StoredQuarantine> {
    const stored = await this.quarantines.get(guildId, incidentId);
    if (!stored) throw AntiNukeErrors.quarantineNotFound();
    if (!(await this.quarantines.claimRelease(incidentId, userId))) {
      return (await this.quarantines.get(guildId, incidentId))!;
    }
    try {
      const result = await this.giveBack(guildId, stored, incidentId);
      await this.quarantines.recordRelease(incidentId, result);
      this.logger.warn(
        {
          guild_id: guildId,
          incident_id: incidentId,
          roles: result.roles_given_back.length,
          permissions: result.permissions_given_back.length,
          not_given_back: result.not_given_back.length,
        },
        'antinuke quarantine given back',
      );
    } catch (error) {
      await this.quarantines.unclaimRelease(incidentId);
      if (isChatPlatformError(error) && !error.retryable) {
        throw AntiNukeErrors.quarantineNotGivenBack(
          `The platform refused the bot (${error.code}): ${error.message}`,
        );
      }
      throw error;
    }
    return (await this.quarantines.get(guildId, incidentId))!;
  }

  private async giveBack(
    guildId: string,
    stored: StoredQuarantine,
    incidentId: string,
  ): Promise<ReleaseResult> {
    const { platformGuildId } = await this.guilds.get(guildId);
    const reason = { reason: `AntiNuke incident ${incidentId} given back` };
    const roles = new Map((await this.platform.getRoles(platformGuildId)).map((role) => [role.id, role]));
    const result: ReleaseResult = { roles_given_back: [], permissions_given_back: [], not_given_back: [] };
    const existing = stored.roles_removed.filter((role) => {
      if (roles.has(role.id)) return true;
      result.not_given_back.push({ ...role, reason: 'role_deleted' });
      return false;
    });
    if (existing.length > 0) {
      const member = await this.platform
        .getMember(platformGuildId, stored.actor_platform_user_id)
        .catch((error: unknown) => {
          if (isChatPlatformError(error) && error.code === 'NotFound') return null;
          throw error;
        });
      if (!member) {
        for (const role of existing) result.not_given_back.push({ ...role, reason: 'member_not_in_guild' });
      } else {
        const held = new Set(member.roles);
        const missing = existing.filter((role) => !held.has(role.id));
        if (missing.length > 0) {
          await this.platform.setMemberRoles(
            platformGuildId,
            stored.actor_platform_user_id,
            [...member.roles, ...missing.map((role) => role.id)],
            reason,
          );
        }
        result.roles_given_back.push(...existing);
      }
    }
    for (const stripped of stored.role_permissions_stripped) {
      const role = roles.get(stripped.id);
      if (!role) {
        result.not_given_back.push({ id: stripped.id, name: stripped.name, reason: 'role_deleted' });
        continue;
      }
      const permissions = (BigInt(role.permissions) | BigInt(stripped.permissions)).toString();
      if (permissions !== role.permissions) {
        await this.platform.updateRole(platformGuildId, role.id, { permissions }, reason);
      }
      result.permissions_given_back.push(stripped);
    }
    return result;
  }
}
