import { platformError } from '../platform-error';
import { type PlatformRoute, ok } from './platform-route';

export const gatewayRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/gateway/bot',
    handle: (_request, store) => {
      if (!store.gatewayUrl) throw platformError.notFound();
      // One shard is plenty for the fake's guilds, and it never runs out of session starts.
      return ok({
        url: store.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
    },
  },
];
