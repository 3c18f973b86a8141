import { defineProblem } from '@lib/problem-details';

/** Why a test DM was not sent. */
export const TestDmErrors = {
  dmRefused: defineProblem({ code: 'ErrDmRefused', status: 422, title: 'The chat platform refused the DM' }),
  tooOften: defineProblem({ code: 'ErrRateLimited', status: 429, title: 'Too many test DMs' }),
  platformUnavailable: defineProblem(
    { code: 'ErrPlatformUnavailable', status: 503, title: 'The chat platform did not answer' },
    () => ({
      detail:
        'The test DM could not be sent because the chat platform is not answering. Try again in a moment.',
    }),
  ),
} as const;
