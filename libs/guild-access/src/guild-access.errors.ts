import { defineProblem } from '@lib/problem-details';

/** The problems of guild-scoped routes, beside the 403 ErrForbidden of a caller without MANAGE_GUILD. */
export const GuildAccessErrors = {
  guildInactive: defineProblem({ code: 'ErrGuildInactive', status: 409, title: 'Guild inactive' }, () => ({
    detail: 'The bot is not installed on this guild any more. Invite it again to continue.',
  })),
  recoveryUnavailable: defineProblem({
    code: 'ErrRecoveryUnavailable',
    status: 503,
    title: 'Service unavailable',
  }),
} as const;
