import { INTERNAL_TOKEN_HEADER } from '@lib/contracts';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InternalHttp } from './internal-http';
import { generateInternalKeys } from './internal-keys';
import { InternalTokenCodec } from './internal-token';

describe(InternalHttp.name, () => {
  const keys = generateInternalKeys();
  const codec = InternalTokenCodec.fromKeySet('billing', keys);
  const licensing = InternalTokenCodec.fromKeySet('licensing', keys);
  let server: Server;
  let baseUrl: string;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/elsewhere' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  it('sends a valid service token and reuses it for half its life, then signs a new one', async () => {
    let now = 1_000_000;
    const sign = jest.spyOn(codec, 'sign');
    const http = new InternalHttp(baseUrl, codec, 'licensing', 2_000, () => now);

    await expect(http.get('/a')).resolves.toEqual({ ok: true });
    await http.post('/b', { x: 1 });
    now += 29_999;
    await http.get('/c');
    expect(sign).toHaveBeenCalledTimes(1);
    now += 1;
    await http.get('/d');
    expect(sign).toHaveBeenCalledTimes(2);

    const tokens = seen.map((headers) => headers[INTERNAL_TOKEN_HEADER] as string);
    expect(new Set(tokens.slice(0, 3)).size).toBe(1);
    await expect(licensing.verify(tokens[3])).resolves.toEqual({ kind: 'service', service: 'billing' });
    sign.mockRestore();
  });

  it('signs again after a failed signature instead of serving the failure', async () => {
    const sign = jest.spyOn(codec, 'sign').mockRejectedValueOnce(new Error('no key'));
    const http = new InternalHttp(baseUrl, codec, 'licensing', 2_000);
    await expect(http.get('/a')).rejects.toThrow('no key');
    await expect(http.get('/a')).resolves.toEqual({ ok: true });
    sign.mockRestore();
  });

  it('does not follow a redirect, so the token goes nowhere else', async () => {
    const http = new InternalHttp(baseUrl, codec, 'licensing', 2_000);
    await expect(http.get('/moved')).rejects.toMatchObject({ response: { status: 302 } });
    expect(seen.map((headers) => headers.host)).toHaveLength(1);
  });
});
