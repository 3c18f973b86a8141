import { defineNotFound, defineProblem } from '@lib/problem-details';

/** The problems of the guild registry and of a member's permissions on the platform. */
export const GuildErrors = {
  notFound: defineNotFound('ErrGuildNotFound', 'Guild'),
  botNotInstalled: defineProblem(
    { code: 'ErrBotNotInstalled', status: 404, title: 'Bot not installed' },
    () => ({
      detail: 'The bot is not a member of this guild. Invite it first, then register the guild.',
    }),
  ),
  /** The member lacks, on the platform, a permission a scope of the request needs. */
  missingPlatformPermission: defineProblem({
    code: 'ErrMissingPlatformPermission',
    status: 403,
    title: 'Missing platform permission',
  }),
} as const;
