import { platformError } from '../platform-error';
import { type PlatformRoute, ok } from './platform-route';

export const gatewayRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/gateway/bot',
    handle: (request, store) => {
      if (!store.gatewayUrl) throw platformError.notFound();
      return ok({
        url: store.gatewayUrl,
        shards: store.gatewayLimits.settings.shards,
        session_start_limit: store.gatewayLimits.sessionStartLimit(request.actorId, Date.now()),
      });
    },
  },
];
