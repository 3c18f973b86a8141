import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import {
  DocumentBuilder,
  type OpenAPIObject,
  type OperationObject,
  type PathItemObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { CommonErrors, mergeProblemAnswers, type ProblemAnswerMap } from '@lib/problem-details';
import { GatewayErrors } from '../../apps/gateway/src/gateway.errors';
import { REPO_ROOT } from './app-sources';
import {
  declaredProblemAnswers,
  describeUuidPathParameters,
  discoverControllers,
  excludeCatchAllRoutes,
  problemSchema,
} from './controller-routes';
import { completePluginMetadata } from './dto-metadata';
import { PLUGIN_METADATA_FILE } from './plugin-metadata.generator';
import { completeResponseSchemas } from './response-schemas';

type PluginMetadata = Parameters<typeof SwaggerModule.loadPluginMetadata>[0];

export const OPENAPI_FILE = join(REPO_ROOT, 'apps/gateway/src/docs/openapi.json');

/**
 * The public API (docs/decisions/public-routes.md): what the gateway serves or forwards. Everything
 * else is internal.
 */
export function isPublicPath(path: string): boolean {
  return path.startsWith('/api/v1/') || path.startsWith('/auth/') || path === '/subscriptions/{id}/cancel';
}

/** Login starts and completes without a session; logout answers 204 with or without one. */
const SESSIONLESS_PATHS = new Set(['/auth/login', '/auth/callback']);
const SESSION_OPTIONAL_PATHS = new Set([...SESSIONLESS_PATHS, '/auth/logout']);

/** What each problem status means, whatever route answers it. */
const PROBLEM_DESCRIPTIONS: Record<string, string> = {
  '400': 'The request is not valid; `errors` lists each invalid field (ErrValidation).',
  '401': 'No session, or it has ended: log in again.',
  '402': 'The payment provider refused the charge; nothing was changed.',
  '403': 'Not allowed: no MANAGE_GUILD in the guild, a plan without the feature, or not the payer.',
  '404': 'Does not exist, or is not visible to you.',
  '409': 'Conflicts with the current state; the detail says what to do.',
  '413': 'The body is larger than the route accepts.',
  '415': 'The body is not application/json.',
  '422': 'Understood, but cannot be done in the current state.',
  '429': 'Too many requests: wait for the Retry-After header.',
};

/**
 * Problem answers every route of a kind gives, added to what each route declares: the session
 * check, the rate limits, the body and query parsing, the cross-origin check of cookie sessions.
 */
function commonProblemAnswers(
  path: string,
  method: string,
  operation: OperationObject,
): Record<string, string[]> {
  const answers: Record<string, string[]> = { '429': [CommonErrors.rateLimited.code] };
  const sessionRoute = !SESSION_OPTIONAL_PATHS.has(path);
  if (sessionRoute) answers[401] = [CommonErrors.unauthenticated.code];
  const parameters = (operation.parameters ?? []) as { in?: string }[];
  if (
    operation.requestBody ||
    parameters.some((parameter) => parameter.in === 'query' || parameter.in === 'path')
  ) {
    answers[400] = [CommonErrors.validation.code];
  }
  if (operation.requestBody) {
    answers[413] = [CommonErrors.payloadTooLarge.code];
    answers[415] = [CommonErrors.unsupportedMediaType.code];
  }
  if (method !== 'get' && !SESSIONLESS_PATHS.has(path))
    answers[403] = [GatewayErrors.crossOriginRequest.code];
  return answers;
}

function addProblemAnswers(
  path: string,
  method: string,
  operation: OperationObject,
  declared: ProblemAnswerMap,
): void {
  const answers = mergeProblemAnswers(declared, commonProblemAnswers(path, method, operation));
  for (const [status, codes] of Object.entries(answers) as [string, string[]][]) {
    operation.responses[status] = {
      description: '',
      content: { 'application/problem+json': { schema: problemSchema(codes) } },
    };
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    if (/^4\d\d$/.test(status) && response && 'description' in response && !response.description) {
      response.description = PROBLEM_DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? status;
    }
  }
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Top-level members in the order a reader expects; everything below them is sorted by key. */
const TOP_LEVEL_ORDER = ['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components'];

const PROBLEM_SCHEMA = {
  type: 'object',
  description:
    'RFC 9457 problem details, served as application/problem+json. Further members (e.g. existing_job, required_feature) depend on the code.',
  required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
  additionalProperties: true,
  properties: {
    type: { type: 'string', format: 'uri', example: 'https://guildkeeper.dev/problems/ErrValidation' },
    title: { type: 'string', example: 'Request is not valid' },
    status: { type: 'integer', example: 400 },
    detail: { type: 'string' },
    code: {
      type: 'string',
      description: 'Stable error code to branch on.',
      example: CommonErrors.validation.code,
    },
    request_id: {
      type: 'string',
      nullable: true,
      description: 'The x-request-id of the request; quote it to support.',
    },
    instance: { type: 'string', description: 'The path of the request.' },
    errors: {
      type: 'array',
      description: 'Every invalid field (ErrValidation).',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

/**
 * A stand-in for every constructor dependency of a controller: any property, call or `new` gives
 * another stand-in, so constructors that only store or wire their dependencies run. It is not a
 * thenable, or Nest would await it as an async provider.
 */
function dummyDependency(): unknown {
  const dummy: unknown = new Proxy(function dummyFunction() {}, {
    get: (_target, property) => {
      if (property === 'then') return undefined;
      if (property === Symbol.iterator) return function* empty() {};
      if (property === Symbol.toPrimitive) return () => '';
      return dummy;
    },
    apply: () => dummy,
    construct: () => dummy as object,
  });
  return dummy;
}

function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function operationsOf(item: PathItemObject): [string, OperationObject][] {
  return HTTP_METHODS.flatMap((method) =>
    item[method] ? [[method, item[method]] as [string, OperationObject]] : [],
  );
}

/** Names of the component schemas a value refers to, directly. */
function schemaRefs(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) schemaRefs(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
        found.add(child.slice('#/components/schemas/'.length));
      } else {
        schemaRefs(child, found);
      }
    }
  }
  return found;
}

/** Keeps only the schemas the paths reach (internal routes' bodies go with their routes). */
function pruneSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const reachable = new Set<string>();
  const pending = [...schemaRefs(document.paths), ...schemaRefs(document.components?.responses)];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reachable.has(name)) continue;
    reachable.add(name);
    pending.push(...schemaRefs(schemas[name]));
  }
  for (const name of Object.keys(schemas)) if (!reachable.has(name)) delete schemas[name];
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/** Shapes swagger's raw document into the published one: public paths only, auth, problem bodies. */
function publish(raw: OpenAPIObject, declared: Map<string, ProblemAnswerMap>): OpenAPIObject {
  const paths = Object.fromEntries(
    Object.entries(raw.paths)
      .filter(([path]) => isPublicPath(path))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of operationsOf(item)) {
      const id = operation.operationId ?? `${path} without operationId`;
      if (operationIds.has(id)) throw new Error(`two operations have the id ${id}`);
      operationIds.add(id);
      if (SESSIONLESS_PATHS.has(path)) operation.security = [];
      if (!operation.summary) throw new Error(`${id} has no summary: add @ApiOperation({ summary })`);
      addProblemAnswers(path, method, operation, declared.get(id.replace(/\[\d+\]$/, '')) ?? {});
      for (const [status, response] of Object.entries(operation.responses)) {
        if (response && 'description' in response && !response.description) {
          response.description = STATUS_CODES[status] ?? status;
        }
      }
      operation.responses.default = { $ref: '#/components/responses/Problem' };
    }
  }
  const { contact, ...info } = raw.info;
  const document: OpenAPIObject = {
    ...raw,
    info: {
      ...(contact && Object.keys(contact).length ? raw.info : info),
      license: { name: 'Proprietary', url: 'https://guildkeeper.dev/terms' },
    },
    paths,
    components: {
      ...raw.components,
      schemas: { ...raw.components?.schemas, Problem: PROBLEM_SCHEMA },
      responses: {
        Problem: {
          description: 'The request failed; the body says why (RFC 9457).',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
    },
  };
  if (!document.tags?.length) delete document.tags;
  // Handlers that return an interface leave their answer a bare object: the checker reads it.
  completeResponseSchemas(document as unknown as Parameters<typeof completeResponseSchemas>[0]);
  pruneSchemas(document);
  if (document.components?.schemas?.Object) {
    throw new Error(
      'a DTO property has a type the swagger plugin cannot name (it became "Object"): annotate the property',
    );
  }
  const sorted = sortKeys(document) as Record<string, unknown>;
  return Object.fromEntries(
    [...TOP_LEVEL_ORDER, ...Object.keys(sorted)]
      .filter((key, index, keys) => key in sorted && keys.indexOf(key) === index)
      .map((key) => [key, sorted[key]]),
  ) as unknown as OpenAPIObject;
}

/**
 * Builds the public API's OpenAPI document from the code: the DTOs (through the committed plugin
 * metadata) and every controller of every app, mounted in one application whose dependencies are
 * all stand-ins, since only routes and types are read.
 */
export async function buildOpenApiDocument(): Promise<OpenAPIObject> {
  // By path, so a run that has just rewritten the file loads what it wrote.
  const { default: pluginMetadata } = (await import(PLUGIN_METADATA_FILE)) as { default: PluginMetadata };
  await SwaggerModule.loadPluginMetadata(pluginMetadata);
  await completePluginMetadata();
  const controllers = await discoverControllers();
  excludeCatchAllRoutes(controllers);
  describeUuidPathParameters(controllers);
  const moduleRef = await Test.createTestingModule({ controllers }).useMocker(dummyDependency).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    const config = new DocumentBuilder()
      .setTitle('guildkeeper public API')
      .setDescription(
        'Snapshots, restores and paid subscriptions for chat-platform guilds, through the gateway. ' +
          'How the parts fit, the restore and billing flows: see docs/architecture.md in the repository. ' +
          'Every error is an RFC 9457 problem body (application/problem+json). ' +
          'Log in at /auth/login; the session is the `sid` cookie or `Authorization: Bearer <token>`.',
      )
      .setVersion(readPackageVersion())
      .addServer('/')
      .addSecurity('cookie', {
        type: 'apiKey',
        in: 'cookie',
        name: 'sid',
        description: 'The session cookie /auth/callback sets in a browser.',
      })
      .addSecurity('bearer', {
        type: 'http',
        scheme: 'bearer',
        description: 'The opaque session token /auth/callback returns to a client that asks for JSON.',
      })
      .addSecurityRequirements('cookie')
      .addSecurityRequirements('bearer')
      .build();
    return publish(SwaggerModule.createDocument(app, config), declaredProblemAnswers(controllers));
  } finally {
    await app.close();
  }
}

/** The committed form (keys already sorted by publish): 2-space JSON with a trailing newline. */
export function serializeOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
