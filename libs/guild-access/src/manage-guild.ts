import type { GuildAccess, InternalIdentity } from '@lib/contracts';
import { CommonErrors } from '@lib/problem-details';
import { GuildAccessErrors } from './guild-access.errors';

export type UserIdentity = Extract<InternalIdentity, { kind: 'user' }>;

/** The platform user behind a request, or 401 when the caller is not a logged-in user. */
export function requireUser(identity: InternalIdentity): UserIdentity {
  if (identity.kind !== 'user') throw CommonErrors.unauthenticated('This action needs a logged-in user.');
  return identity;
}

/**
 * docs/behaviour.md §5.2: guild-scoped operations need MANAGE_GUILD, on a guild where the bot is installed.
 * The permission is asked first: whoever cannot manage the guild (`null`: a guild nobody knows)
 * gets the same 403, so they learn nothing of whether it exists or is inactive. Only a manager
 * hears that the bot has gone.
 */
export function assertManageGuild(access: GuildAccess | null): GuildAccess {
  if (!access?.manage_guild) {
    throw CommonErrors.forbidden('You need the Manage Server permission on this guild.');
  }
  if (!access.active) {
    throw GuildAccessErrors.guildInactive();
  }
  return access;
}
