import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateInternalKeys } from '@lib/identity';
import request from 'supertest';
import { guardedServerForSuite } from '../../../../test/support/guarded-app';
import { DocsModule } from './docs.module';

describe('DocsModule', () => {
  const keys = generateInternalKeys();
  // The guard every service has: the docs must pass it without an internal token.
  const server = guardedServerForSuite('gateway', keys, { imports: [DocsModule] });

  it('serves the committed OpenAPI document without a session or token', async () => {
    const response = await request(server()).get('/docs/openapi.json').expect(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.text).toBe(readFileSync(join(__dirname, 'openapi.json'), 'utf8'));
  });

  it('serves Swagger UI from the installed assets, pointed at the document', async () => {
    const page = await request(server()).get('/docs').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const asset of page.text.match(/(?<=(?:src|href)=")[^"]+/g) ?? []) {
      await request(server()).get(asset).expect(200);
    }
    expect(page.text).toContain('/docs/swagger-ui-bundle.js');
    const bundle = await request(server()).get('/docs/swagger-ui-bundle.js').expect(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    const init = await request(server()).get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain("url: '/docs/openapi.json'");
  });

  it('serves nothing else from the assets folder', async () => {
    const response = await request(server()).get('/docs/package.json').expect(404);
    expect(response.body).toMatchObject({ code: 'ErrNotFound' });
  });
});
