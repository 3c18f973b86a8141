import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { register } from 'prom-client';
import { servePlainRoutes } from './plain-routes';

describe(servePlainRoutes.name, () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(404).end(`framework ${req.method} ${req.url}`));
    servePlainRoutes(server, 'test-service', [
      {
        method: 'POST',
        path: '/hooks/in',
        handle: (req, res) => res.writeHead(202).end(`plain ${req.url}`),
      },
    ]);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const call = async (method: string, path: string) => {
    const response = await fetch(`${url}${path}`, { method, ...(method === 'POST' ? { body: 'x' } : {}) });
    return `${response.status} ${await response.text()}`;
  };

  it('hands its method and exact path to the plain handler, with or without a query string', async () => {
    await expect(call('POST', '/hooks/in')).resolves.toBe('202 plain /hooks/in');
    await expect(call('POST', '/hooks/in?retry=1')).resolves.toBe('202 plain /hooks/in?retry=1');
  });

  it('leaves every other request to the framework', async () => {
    await expect(call('GET', '/hooks/in')).resolves.toBe('404 framework GET /hooks/in');
    await expect(call('POST', '/hooks/in/more')).resolves.toBe('404 framework POST /hooks/in/more');
    await expect(call('POST', '/hooks')).resolves.toBe('404 framework POST /hooks');
  });

  it('counts what the plain handler answered under its route template', async () => {
    const count = async () => {
      const metric = await register.getSingleMetric('http_requests_total')?.get();
      return (
        metric?.values.find(
          (value) =>
            value.labels.service === 'test-service' &&
            value.labels.route === '/hooks/in' &&
            value.labels.status === '202',
        )?.value ?? 0
      );
    };
    const before = await count();
    await call('POST', '/hooks/in');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await count()).toBe(before + 1);
  });
});
