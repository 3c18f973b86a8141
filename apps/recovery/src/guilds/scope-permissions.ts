import { Injectable } from '@nestjs/common';
import { missingPermissions, type PermissionName } from '@lib/chat-platform';
import type { RestoreScope } from '@lib/contracts';
import type { DomainError } from '@lib/problem-details';
import { GuildAccessService } from './guild-access.service';
import { GuildsRepository } from './guilds.repository';
import { GuildErrors } from './guilds.errors';

/**
 * The platform permissions a restore scope exercises: what the user would need to make the same
 * changes on the platform themselves. Overwrites are channel edits that name roles.
 */
export const SCOPE_PERMISSIONS: Record<RestoreScope, readonly PermissionName[]> = {
  roles: ['MANAGE_ROLES'],
  member_roles: ['MANAGE_ROLES'],
  channels: ['MANAGE_CHANNELS'],
  permission_overrides: ['MANAGE_CHANNELS', 'MANAGE_ROLES'],
  guild_settings: ['MANAGE_GUILD'],
  bans: ['BAN_MEMBERS'],
  // The platform asks CREATE_GUILD_EXPRESSIONS to make one and MANAGE_GUILD_EXPRESSIONS to change
  // or delete another's; a restore does all three.
  emojis: ['CREATE_GUILD_EXPRESSIONS', 'MANAGE_GUILD_EXPRESSIONS'],
  stickers: ['CREATE_GUILD_EXPRESSIONS', 'MANAGE_GUILD_EXPRESSIONS'],
  guild_images: ['MANAGE_GUILD'],
  automod: ['MANAGE_GUILD'],
  // Modifying the welcome screen needs MANAGE_GUILD; the onboarding MANAGE_GUILD and MANAGE_ROLES
  // (resources/guild, "Modify Guild Welcome Screen", "Modify Guild Onboarding").
  onboarding: ['MANAGE_GUILD', 'MANAGE_ROLES'],
  webhooks: ['MANAGE_WEBHOOKS'],
};

/**
 * A snapshot's payload shows every part of the guild: reading it needs what restoring all of it
 * does, but for the emojis, stickers and images, which any member sees.
 */
export const PAYLOAD_SCOPES: readonly RestoreScope[] = (
  Object.keys(SCOPE_PERMISSIONS) as RestoreScope[]
).filter((scope) => !['emojis', 'stickers', 'guild_images'].includes(scope));

/** The platform's names of the permissions, as its clients show them. */
const PERMISSION_TITLES: Partial<Record<PermissionName, string>> = {
  MANAGE_ROLES: 'Manage Roles',
  MANAGE_CHANNELS: 'Manage Channels',
  MANAGE_GUILD: 'Manage Server',
  BAN_MEMBERS: 'Ban Members',
  CREATE_GUILD_EXPRESSIONS: 'Create Expressions',
  MANAGE_GUILD_EXPRESSIONS: 'Manage Expressions',
  MANAGE_WEBHOOKS: 'Manage Webhooks',
};

export interface RefusedScope {
  scope: RestoreScope;
  missing: PermissionName[];
}

/** Each scope of `scopes` whose permissions `permissions` does not all hold, with what is missing. */
export function refusedScopes(permissions: bigint, scopes: readonly RestoreScope[]): RefusedScope[] {
  return scopes
    .map((scope) => ({ scope, missing: missingPermissions(permissions, SCOPE_PERMISSIONS[scope]) }))
    .filter(({ missing }) => missing.length > 0);
}

/** 403 naming the first refused scope and its missing permissions; every refusal in `refused`. */
export function missingPermissionError(refused: RefusedScope[], action: string): DomainError {
  const [first] = refused;
  const names = first.missing.map((name) => PERMISSION_TITLES[name] ?? name).join(' and ');
  return GuildErrors.missingPlatformPermission(
    `${action} ${first.scope} needs the ${names} permission on the server, which you do not hold there.`,
    {
      scope: first.scope,
      missing_permissions: first.missing,
      refused_scopes: refused,
    },
  );
}

/**
 * A user may restore (or read) a part of a guild only while they hold, on the platform, the
 * permission that changing it there needs; the guild's owner always may. Checked against the
 * member's roles and timeout as GuildAccessService reads them.
 */
@Injectable()
export class ScopePermissions {
  constructor(
    private readonly guilds: GuildsRepository,
    private readonly access: GuildAccessService,
  ) {}

  /**
   * Throws the 403 when the user lacks a permission of `scopes`. `live`: read the member from the
   * platform now rather than trust a cached answer (a restore's start).
   */
  async require(
    guildId: string,
    platformUserId: string,
    scopes: readonly RestoreScope[],
    options: { action: string; live?: boolean },
  ): Promise<void> {
    const guild = await this.guilds.findById(guildId);
    if (!guild) return;
    const permissions = options.live
      ? await this.access.livePermissions(guild.platformGuildId, platformUserId)
      : await this.access.permissionsIn(guild, platformUserId);
    const refused = refusedScopes(permissions, scopes);
    if (refused.length > 0) throw missingPermissionError(refused, options.action);
  }
}
