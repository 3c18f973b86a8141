import { defineProblem } from '@lib/problem-details';

/** What Node's HTTP server refuses before Express sees a request. */
export const RuntimeErrors = {
  headersTooLarge: defineProblem({
    code: 'ErrHeadersTooLarge',
    status: 431,
    title: 'Request header fields too large',
  }),
  requestTimeout: defineProblem({ code: 'ErrRequestTimeout', status: 408, title: 'Request timeout' }),
} as const;
