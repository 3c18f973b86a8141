import type { GuildAccess, InternalIdentity } from '@lib/contracts';
import { DomainError, ForbiddenError, UnauthenticatedError } from '@lib/problem-details';

export type UserIdentity = Extract<InternalIdentity, { kind: 'user' }>;

/** The platform user behind a request, or 401 when the caller is not a logged-in user. */
export function requireUser(identity: InternalIdentity): UserIdentity {
  if (identity.kind !== 'user') throw new UnauthenticatedError('This action needs a logged-in user.');
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
    throw new ForbiddenError('You need the Manage Server permission on this guild.');
  }
  if (!access.active) {
    throw new DomainError(
      'ErrGuildInactive',
      409,
      'Guild inactive',
      'The bot is not installed on this guild any more. Invite it again to continue.',
    );
  }
  return access;
}
