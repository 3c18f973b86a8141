import { Controller, Get, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ProblemDetailsFilter } from '@lib/problem-details';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { App } from 'supertest/types';
import type { GatewayEnv } from '../gateway.env';
import { gatewayService } from '../service';

const SHELL =
  '<!doctype html><html><head><script type="module" src="/assets/index-AbC123.js"></script></head></html>';

@Controller()
class Routes {
  @Get('api/v1/ping')
  ping() {
    return { pong: true };
  }

  @Get('health/live')
  live() {
    return { status: 'ok' };
  }
}

@Module({ controllers: [Routes] })
class RoutesModule {}

/** The gateway's own middleware (security headers, the dashboard's files) on a few stand-in routes. */
async function gatewayWith(distDir: string): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(RoutesModule, { logger: false });
  const config = {
    DASHBOARD_URL: 'http://127.0.0.1:3000/',
    DASHBOARD_DIST_DIR: distDir,
    TRUST_PROXY_HOPS: 0,
    PROVIDER_SDK_URL: 'https://js.tosspayments.com/v2/standard',
  } as GatewayEnv;
  gatewayService.configure!(app, config);
  app.useGlobalFilters(new ProblemDetailsFilter());
  await app.init();
  return app;
}

/** What a browser sends when it navigates to a page. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('the dashboard on the gateway', () => {
  const dist = mkdtempSync(path.join(tmpdir(), 'dashboard-dist-'));
  let app: INestApplication;
  const server = () => app.getHttpServer() as App;

  beforeAll(async () => {
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), SHELL);
    writeFileSync(path.join(dist, 'assets', 'index-AbC123.js'), 'console.log("app");');
    writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = await gatewayWith(dist);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves the shell at / and at every page of the app, never cached, under the CSP', async () => {
    for (const page of ['/', '/guilds/0190a000-0000-7000-8000-000000000001/snapshots', '/login']) {
      const response = await request(server()).get(page).set('accept', BROWSER_ACCEPT).expect(200);
      expect(response.text).toBe(SHELL);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-store');
      const csp = response.headers['content-security-policy'];
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
  });

  it('serves hashed assets for a year, immutable; a missing one is a 404, not the shell', async () => {
    const asset = await request(server()).get('/assets/index-AbC123.js').expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await request(server()).get('/assets/index-Gone.js').expect(404);
    expect(missing.text).not.toContain('<html');
    const icon = await request(server()).get('/favicon.svg').expect(200);
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
    await request(server()).get('/nothing-here.png').expect(404);
    await request(server()).get('/guilds/x/favicon.svg').expect(404);
  });

  it('leaves the API, health and every reserved path to their owners', async () => {
    expect((await request(server()).get('/api/v1/ping').expect(200)).body).toEqual({ pong: true });
    await request(server()).get('/health/live').expect(200);
    for (const owned of [
      '/api/v1/unknown',
      '/auth/nowhere',
      '/docs/x',
      '/metrics',
      '/admin/v1/x',
      '/sandbox',
    ]) {
      const response = await request(server()).get(owned).expect(404);
      expect(response.headers['content-type']).toMatch(/problem\+json/);
    }
    // Only reads get the shell.
    await request(server()).post('/guilds/x').set('accept', BROWSER_ACCEPT).expect(404);
  });

  it('gives a page only to a browser: another client of an unknown path gets the 404 problem', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const call = request(server()).get('/no-such-route');
      const response = await (accept ? call.set('accept', accept) : call).expect(404);
      expect(response.headers['content-type']).toMatch(/problem\+json/);
    }
  });

  it('serves the API alone when there is no build', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'dashboard-none-'));
    const bare = await gatewayWith(empty);
    try {
      await request(bare.getHttpServer() as App)
        .get('/api/v1/ping')
        .expect(200);
      await request(bare.getHttpServer() as App)
        .get('/')
        .expect(404);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
