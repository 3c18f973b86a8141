import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { OpenAPIObject, OperationObject, SchemaObject } from '@nestjs/swagger';
import { RESTORE_SCOPES } from '@lib/contracts';
import {
  buildOpenApiDocument,
  isPublicPath,
  OPENAPI_FILE,
  serializeOpenApiDocument,
} from '../../../../scripts/openapi/openapi-document';
import { REPO_ROOT } from '../../../../scripts/openapi/app-sources';
import { describeDrift } from '../../../../scripts/openapi/drift-summary';
import {
  generatePluginMetadata,
  PLUGIN_METADATA_FILE,
} from '../../../../scripts/openapi/plugin-metadata.generator';
import { matchUpstream } from '../forwarding/upstream-routes';

/** Fails with the operations, schemas and lines that differ, rather than two whole files. */
function expectCommitted(file: string, generated: string): void {
  const committed = readFileSync(file, 'utf8');
  if (generated !== committed) {
    throw new Error(
      `${relative(REPO_ROOT, file)} is stale: run \`npm run openapi\` and commit the result.\n` +
        describeDrift(file, committed, generated),
    );
  }
}
const SOME_UUID = '0190a000-0000-7000-8000-000000000000';

describe('OpenAPI document (apps/gateway/src/docs/openapi.json)', () => {
  let document: OpenAPIObject;

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((method) =>
        item[method] ? [{ method: method.toUpperCase(), path, operation: item[method] }] : [],
      ),
    );
  const operation = (method: 'get' | 'put' | 'post' | 'delete', path: string): OperationObject => {
    const found = document.paths[path]?.[method];
    if (!found) throw new Error(`${method.toUpperCase()} ${path} is not documented`);
    return found;
  };
  const bodySchema = (method: 'post' | 'put', path: string): SchemaObject => {
    const body = operation(method, path).requestBody as {
      content: Record<string, { schema: { $ref: string } }>;
    };
    const name = body.content['application/json'].schema.$ref.split('/').pop() ?? '';
    return document.components?.schemas?.[name] as SchemaObject;
  };

  beforeAll(async () => {
    document = await buildOpenApiDocument();
  }, 60_000);

  it('is what the code generates', () => {
    expectCommitted(OPENAPI_FILE, serializeOpenApiDocument(document));
  });

  // Type-checks every app's controllers and DTOs: a few seconds.
  it('rests on plugin metadata generated from the current DTOs and controllers', () => {
    expectCommitted(PLUGIN_METADATA_FILE, generatePluginMetadata());
  }, 60_000);

  // Redocly's recommended rules (summaries, declared 4xx answers, valid schemas): what a generated
  // client needs. Zero errors and zero warnings.
  it('passes Redocly lint with the recommended rules, without a warning', () => {
    const output = execFileSync(
      join(REPO_ROOT, 'node_modules/.bin/redocly'),
      ['lint', OPENAPI_FILE, '--extends', 'recommended', '--format', 'json'],
      { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const report = JSON.parse(output) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    expect(
      report.problems.map(
        (problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
      ),
    ).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('gives every operation a summary and the problem answers a client meets', () => {
    for (const { method, path, operation } of operations()) {
      expect({ route: `${method} ${path}`, summary: operation.summary }).toEqual({
        route: `${method} ${path}`,
        summary: expect.stringMatching(/^[A-Z][^.]{3,60}$/),
      });
      const problems = Object.entries(operation.responses).filter(([status]) => /^4\d\d$/.test(status));
      expect({ route: `${method} ${path}`, problems: problems.length > 0 }).toEqual({
        route: `${method} ${path}`,
        problems: true,
      });
    }
    const start = operation('post', '/api/v1/restore/start').responses['409'] as {
      content: Record<string, { schema: { allOf: { properties?: { code?: { enum: string[] } } }[] } }>;
    };
    expect(start.content['application/problem+json'].schema.allOf[1].properties?.code?.enum).toEqual([
      'ErrDiffChanged',
      'ErrGuildInactive',
      'ErrRestoreAlreadyInProgress',
    ]);
    expect(Object.keys(operation('get', '/api/v1/me').responses)).toEqual(['200', '401', '429', 'default']);
  });

  it('documents the public API only: no internal, operator, health or platform route', () => {
    const paths = Object.keys(document.paths);
    expect(paths.filter((path) => !isPublicPath(path))).toEqual([]);
    expect(
      paths.filter((path) => /^\/(internal|admin|health|metrics|interactions|webhooks|docs)\b/.test(path)),
    ).toEqual([]);
  });

  it('has every public route of every app, each one the gateway answers or forwards', () => {
    expect(operations().map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining([
        'GET /auth/login',
        'GET /auth/callback',
        'POST /auth/logout',
        'GET /api/v1/me',
        'GET /api/v1/me/guilds',
        'POST /api/v1/guilds',
        'GET /api/v1/guilds/{guildId}',
        'POST /api/v1/guilds/{guildId}/snapshots',
        'GET /api/v1/guilds/{guildId}/snapshots',
        'GET /api/v1/snapshots/{snapshotId}',
        'DELETE /api/v1/snapshots/{snapshotId}',
        'POST /api/v1/restore/preview',
        'POST /api/v1/restore/start',
        'GET /api/v1/restore/{jobId}',
        'POST /api/v1/restore/{jobId}/cancel',
        'GET /api/v1/billing/prepare',
        'POST /api/v1/billing/confirm',
        'GET /api/v1/subscriptions/{id}',
        'POST /api/v1/subscriptions/{id}/change-plan',
        'POST /api/v1/subscriptions/{id}/cancel',
        'POST /subscriptions/{id}/cancel',
        'POST /api/v1/subscriptions/{id}/uncancel',
        'GET /api/v1/guilds/{guildId}/subscriptions',
        'GET /api/v1/guilds/{guildId}/license',
        'GET /api/v1/guilds/{guildId}/audit-log',
        'GET /api/v1/me/notification-preferences',
        'PUT /api/v1/me/notification-preferences',
      ]),
    );
    const servedByTheGateway = (path: string) =>
      path.startsWith('/auth/') || path === '/api/v1/me' || path === '/api/v1/me/guilds';
    const unreachable = operations()
      .filter(({ path }) => !servedByTheGateway(path))
      .filter(({ method, path }) => {
        const match = matchUpstream(method, path.replace(/\{[^}]+\}/g, SOME_UUID));
        return !match || !('upstream' in match);
      });
    expect(unreachable.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it('describes request bodies and queries from the DTOs and their class-validator constraints', () => {
    const preview = bodySchema('post', '/api/v1/restore/preview');
    expect(preview.required).toEqual(expect.arrayContaining(['snapshot_id', 'scope']));
    expect(preview.properties?.snapshot_id).toEqual({ type: 'string', format: 'uuid' });
    expect(preview.properties?.scope).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: RESTORE_SCOPES.length,
    });

    const confirm = bodySchema('post', '/api/v1/billing/confirm');
    // auth_key is optional: without it, the payer's card on file is charged (docs/behaviour.md §4.5).
    expect(confirm.required).toEqual(['checkout_id', 'customer_key', 'guild_id', 'plan_code']);
    expect(confirm.properties?.checkout_id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(confirm.properties?.auth_key).toMatchObject({ type: 'string' });
    expect(confirm.properties?.plan_code).toEqual({ type: 'string', enum: ['FREE', 'PRO', 'ENTERPRISE'] });

    const preferences = bodySchema('put', '/api/v1/me/notification-preferences');
    expect(preferences.properties?.payment_notifications).toMatchObject({ type: 'boolean' });
    expect(preferences.required).toEqual(['payment_notifications']);

    expect(operation('get', '/api/v1/guilds/{guildId}/snapshots').parameters).toEqual(
      expect.arrayContaining([
        { in: 'path', name: 'guildId', required: true, schema: { type: 'string', format: 'uuid' } },
        {
          in: 'query',
          name: 'limit',
          required: false,
          schema: { type: 'integer', default: 50, minimum: 1, maximum: 100 },
        },
      ]),
    );
  });

  it('asks for the session everywhere but where it is obtained, and answers errors as problems', () => {
    expect(document.security).toEqual([{ cookie: [] }, { bearer: [] }]);
    expect(document.components?.securitySchemes).toEqual({
      cookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'sid' }),
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    const sessionless = operations().filter(({ operation }) => operation.security?.length === 0);
    expect(sessionless.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'GET /auth/callback',
      'GET /auth/login',
    ]);
    for (const { operation } of operations()) {
      expect(operation.responses.default).toEqual({ $ref: '#/components/responses/Problem' });
    }
    expect(document.components?.schemas?.Problem).toMatchObject({
      required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
      properties: expect.objectContaining({ code: expect.anything(), errors: expect.anything() }),
    });
  });
});
