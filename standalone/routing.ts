import { CommonErrors, sendProblem, toProblem } from '@lib/problem-details';
import { enterService, requestIdFor } from '@lib/runtime';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WEBHOOK_PATH } from '../apps/webhook-intake/src/webhooks/webhook-endpoint';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Who answers on the public port once the services are up. */
export interface PublicRoutes {
  /** The webhook intake's Express app: the provider's webhooks and the operator tools. */
  intake: Listener;
  /** The gateway's Express app: the dashboard, the API, login, docs and health. */
  gateway: Listener;
  /** The sandbox's control routes under /sandbox, when the sandbox runs. */
  sandbox?: Listener;
}

/** Which of the public routes answers a request path. */
export function publicRouteOf(pathname: string, hasSandbox: boolean): keyof PublicRoutes {
  // The intake's operator tools too: the port is loopback-only unless HOST says otherwise.
  if (pathname === WEBHOOK_PATH || pathname.startsWith('/admin/')) return 'intake';
  if (hasSandbox && (pathname === '/sandbox' || pathname.startsWith('/sandbox/'))) return 'sandbox';
  return 'gateway';
}

/**
 * The public port's request listener (docs/decisions/standalone-mode.md): the webhook intake,
 * the sandbox and the gateway on one origin. The request's lines in the log name the service that
 * answers it (`enterService`); the sandbox is no service.
 */
export function publicRouter(routes: PublicRoutes): Listener {
  return (req, res) => {
    const route = publicRouteOf((req.url ?? '/').split('?')[0], routes.sandbox !== undefined);
    if (route === 'sandbox') return routes.sandbox!(req, res);
    enterService(route === 'intake' ? 'webhook-intake' : 'gateway');
    return routes[route](req, res);
  };
}

/** How long a client is asked to wait before it tries again while the product starts. */
const STARTING_RETRY_AFTER_S = 1;

/**
 * The public port's answer to every request before the services are up: 503 with `Retry-After`,
 * so a client (a probe, a webhook delivery, a browser) learns at once to come back, rather than
 * waiting on a connection that is accepted and never answered.
 */
export function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  const starting = CommonErrors.unavailable(
    `guildkeeper is starting. Try again in ${STARTING_RETRY_AFTER_S} s.`,
  );
  sendProblem(res, toProblem(starting, requestIdFor(req, res)), {
    retryAfterSeconds: STARTING_RETRY_AFTER_S,
  });
}
