import { seedDemoGuild } from '../../standalone/sandbox';
import type { LoggedIn } from '../support/gateway-stack';
import { StandaloneStack } from '../support/standalone-stack';
import { waitFor } from '../support/wait';

const PROBLEM = 'application/problem+json';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * What the product answers about the body of a request, through the public port as a client sees
 * it: bodies the gateway reads itself (its own routes) and bodies it forwards, unread, to the
 * service that owns the route (which parses and validates them).
 */
describe('request bodies: parse errors, media types and validation messages', () => {
  const stack = new StandaloneStack();
  let owner: LoggedIn;
  let guildId: string;
  let snapshotId: string;
  let requests = 0;

  beforeAll(async () => {
    await stack.start();
    const demo = seedDemoGuild(stack.platform);
    owner = await stack.login(demo.ownerId);
    const guild = await json('POST', '/api/v1/guilds', { platform_guild_id: demo.guildId });
    guildId = guild.body.id as string;
    // A snapshot to preview, which needs a paid plan (with a slot to spare for more).
    const prepared = await json('GET', `/api/v1/billing/prepare?guild_id=${guildId}&plan=ENTERPRISE`);
    const customerKey = prepared.body.customer_key as string;
    const confirmed = await json('POST', '/api/v1/billing/confirm', {
      checkout_id: prepared.body.checkout_id,
      auth_key: stack.provider.authorizeCard({ customerKey }),
      customer_key: customerKey,
      guild_id: guildId,
      plan_code: 'ENTERPRISE',
    });
    expect(confirmed.status).toBe(200);
    await waitFor('the ENTERPRISE licence', async () => {
      const license = await json('GET', `/api/v1/guilds/${guildId}/license`);
      return (license.body.plan as { code?: string } | undefined)?.code === 'ENTERPRISE';
    });
    const snapshot = await json('POST', `/api/v1/guilds/${guildId}/snapshots`, {});
    expect(snapshot.status).toBe(200);
    snapshotId = snapshot.body.id as string;
  });

  afterAll(() => stack.stop());

  /** A request with a body exactly as given, under a request id of its own. */
  async function send(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string> = {},
  ): Promise<Answer & { requestId: string }> {
    const requestId = `bodies-${++requests}`;
    const response = await fetch(`${stack.gateway.url}${path}`, {
      method,
      body,
      headers: { authorization: `Bearer ${owner.token}`, 'x-request-id': requestId, ...headers },
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      requestId,
    };
  }

  function json(method: string, path: string, body?: unknown): Promise<Answer> {
    return send(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? {} : { 'content-type': 'application/json' },
    );
  }

  const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
  const BAD_JSON: [what: string, body: string, detail: RegExp][] = [
    ['not JSON', '{bad', /^The request body is not valid JSON/],
    ['null', 'null', /^The request body must be a JSON object\.$/],
    ['a number', '42', /^The request body must be a JSON object\.$/],
    ['a string', '"scope"', /^The request body must be a JSON object\.$/],
    ['an array', '[{"snapshot_id":"x"}]', /^The request body must be a JSON object\.$/],
    ['a NUL character', '{"snapshot_id":"a\\u0000b"}', /NUL/],
    ['an unpaired surrogate', '{"snapshot_id":"\\ud800"}', /surrogate/],
    ['nesting too deep', deep, /deeper than/],
  ];

  it.each(BAD_JSON)(
    'a body that is %s is refused 400 with the request id and what is wrong',
    async (_what, body, detail) => {
      // A forwarded route (the recovery service parses it) and one of the gateway's own.
      for (const path of ['/api/v1/restore/preview', '/auth/logout']) {
        const answer = await send('POST', path, body, { 'content-type': 'application/json' });
        expect({ path, status: answer.status, type: answer.headers.get('content-type') }).toEqual({
          path,
          status: 400,
          type: expect.stringContaining(PROBLEM),
        });
        expect(answer.body).toMatchObject({ status: 400, request_id: answer.requestId });
        expect(answer.body.detail).toMatch(detail);
        expect(answer.headers.get('x-request-id')).toBe(answer.requestId);
      }
    },
  );

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['no content type', undefined],
  ])('a body sent as %s is refused 415, naming application/json', async (_what, contentType) => {
    const body = JSON.stringify({ snapshot_id: snapshotId, scope: ['roles'] });
    for (const path of ['/api/v1/restore/preview', `/api/v1/guilds/${guildId}/snapshots`, '/auth/logout']) {
      const answer = await send('POST', path, body, contentType ? { 'content-type': contentType } : {});
      expect({ path, status: answer.status }).toEqual({ path, status: 415 });
      expect(answer.headers.get('content-type')).toContain(PROBLEM);
      expect(answer.body).toMatchObject({
        status: 415,
        code: 'ErrUnsupportedMediaType',
        request_id: answer.requestId,
      });
      expect(answer.body.detail).toContain('application/json');
    }
  });

  it('a request without a body where none is needed is fine, whatever its content type says', async () => {
    const contentTypes: Record<string, string>[] = [
      {},
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/json' },
    ];
    for (const headers of contentTypes) {
      // No body, and an empty one: the same.
      for (const body of [undefined, '']) {
        const created = await send('POST', `/api/v1/guilds/${guildId}/snapshots`, body, headers);
        expect({ headers, body, status: created.status }).toEqual({ headers, body, status: 200 });
        const deleted = await send(
          'DELETE',
          `/api/v1/snapshots/${created.body.id as string}`,
          undefined,
          headers,
        );
        expect(deleted.status).toBeLessThan(300);
      }
      const listed = await send('GET', `/api/v1/guilds/${guildId}/snapshots`, undefined, headers);
      expect(listed.status).toBe(200);
    }
  });

  it('a forwarded body of another type is still not read before the session is checked', async () => {
    const response = await fetch(`${stack.gateway.url}/api/v1/restore/preview`, {
      method: 'POST',
      body: 'snapshot_id=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(401);
  });

  it('reports the first rule each field breaks, once, in plain words', async () => {
    const description = await json('POST', `/api/v1/guilds/${guildId}/snapshots`, { description: 123 });
    expect(description.status).toBe(400);
    expect(description.body.errors).toEqual([
      { field: 'description', message: 'description must be a string' },
    ]);
    expect(description.body.detail).toBe('description must be a string');

    const missingScope = await json('POST', '/api/v1/restore/preview', { snapshot_id: snapshotId });
    expect(missingScope.status).toBe(400);
    expect(missingScope.body.errors).toEqual([{ field: 'scope', message: 'scope is required' }]);

    const repeated = await json('POST', '/api/v1/restore/preview', {
      snapshot_id: snapshotId,
      scope: ['roles', 'roles'],
      extra: true,
    });
    expect(repeated.status).toBe(400);
    const byField = (repeated.body.errors as { field: string }[]).sort((a, b) =>
      a.field.localeCompare(b.field),
    );
    expect(byField).toEqual([
      { field: 'extra', message: 'extra is not a field of this request' },
      { field: 'scope', message: 'scope must not name an item twice' },
    ]);
  });
});
