import { matchUpstream } from './upstream-routes';

const id = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe(matchUpstream.name, () => {
  it.each([
    ['POST', '/api/v1/guilds', 'recovery'],
    ['GET', `/api/v1/guilds/${id}`, 'recovery'],
    ['POST', `/api/v1/guilds/${id}/snapshots`, 'recovery'],
    ['GET', `/api/v1/guilds/${id}/snapshots`, 'recovery'],
    ['DELETE', `/api/v1/snapshots/${id}`, 'recovery'],
    ['GET', `/api/v1/guilds/${id}/antinuke`, 'recovery'],
    ['PUT', `/api/v1/guilds/${id}/antinuke`, 'recovery'],
    ['GET', `/api/v1/guilds/${id}/incidents`, 'recovery'],
    ['GET', `/api/v1/guilds/${id}/antinuke/lockdown`, 'recovery'],
    ['POST', `/api/v1/guilds/${id}/antinuke/lockdown`, 'recovery'],
    ['DELETE', `/api/v1/guilds/${id}/antinuke/lockdown`, 'recovery'],
    ['POST', `/api/v1/guilds/${id}/antinuke/incidents/${id}/release`, 'recovery'],
    ['POST', '/api/v1/restore/preview', 'recovery'],
    ['POST', '/api/v1/restore/start', 'recovery'],
    ['GET', `/api/v1/restore/${id}`, 'recovery'],
    ['POST', `/api/v1/restore/${id}/cancel`, 'recovery'],
    ['GET', `/api/v1/guilds/${id}/subscriptions`, 'billing'],
    ['GET', '/api/v1/billing/prepare', 'billing'],
    ['POST', '/api/v1/billing/confirm', 'billing'],
    ['POST', `/api/v1/subscriptions/${id}/change-plan`, 'billing'],
    ['GET', `/api/v1/subscriptions/${id}/payments`, 'billing'],
    ['DELETE', `/api/v1/subscriptions/${id}/pending-downgrade`, 'billing'],
    ['GET', '/api/v1/plans', 'licensing'],
    ['POST', `/subscriptions/${id}/cancel`, 'billing'],
    ['GET', `/api/v1/guilds/${id}/license`, 'licensing'],
    ['GET', `/api/v1/guilds/${id}/audit-log`, 'notifier'],
    ['PUT', '/api/v1/me/notification-preferences', 'notifier'],
    ['POST', '/api/v1/me/notification-preferences/test-dm', 'notifier'],
  ])('sends %s %s to %s', (method, path, upstream) => {
    expect(matchUpstream(method, path)).toEqual({ upstream });
  });

  it('knows the methods of a path it serves, for a 405', () => {
    expect(matchUpstream('DELETE', '/api/v1/billing/confirm')).toEqual({ notAllowed: ['POST'] });
    expect(matchUpstream('POST', `/api/v1/guilds/${id}/antinuke`)).toEqual({ notAllowed: ['GET', 'PUT'] });
  });

  it.each([
    '/internal/v1/plans',
    '/api/v1/../internal/v1/plans',
    `/api/v1/guilds/${id}/access/123`,
    '/admin/v1/webhook-events',
    '/api/v1/subscriptions',
    `/api/v1/guilds/${id}/snapshots/extra`,
    `/api/v1/guilds/${id}/incidents/${id}`,
    `/api/v1/guilds/${id}/antinuke/incidents/${id}`,
    '/api/v1/snapshots/..%2F..%2Finternal%2Fv1%2Fplans',
  ])('serves nothing at %s', (path) => {
    expect(matchUpstream('GET', path)).toBeNull();
  });
});
