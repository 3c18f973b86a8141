import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerStarting, publicRouteOf, publicRouter } from './routing';

describe(publicRouteOf.name, () => {
  it.each([
    ['/webhooks/provider', 'intake'],
    ['/admin/v1/webhook-events', 'intake'],
    ['/sandbox', 'sandbox'],
    ['/sandbox/raid', 'sandbox'],
    ['/sandboxed', 'gateway'],
    ['/', 'gateway'],
    ['/api/v1/guilds', 'gateway'],
    ['/admin', 'gateway'],
  ])('sends %s to the %s', (pathname, route) => {
    expect(publicRouteOf(pathname, true)).toBe(route);
  });

  it('sends /sandbox to the gateway when no sandbox runs', () => {
    expect(publicRouteOf('/sandbox/raid', false)).toBe('gateway');
  });
});

describe('the public port', () => {
  let server: Server;
  let url: string;
  const serve = async (listener: RequestListener) => {
    server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers each request from the part its path belongs to, the query aside', async () => {
    const answer = (who: string) => (_req: unknown, res: ServerResponse) => res.end(who);
    await serve(
      publicRouter({ intake: answer('intake'), gateway: answer('gateway'), sandbox: answer('sandbox') }),
    );
    const body = async (path: string) => (await fetch(`${url}${path}`)).text();
    expect(await body('/webhooks/provider?x=1')).toBe('intake');
    expect(await body('/sandbox/raid')).toBe('sandbox');
    expect(await body('/api/v1/me')).toBe('gateway');
  });

  it('answers 503 with Retry-After while the services start', async () => {
    await serve(answerStarting);
    const response = await fetch(`${url}/api/v1/me`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });
});
