import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { App } from 'supertest/types';
import type { GatewayEnv } from './gateway.env';
import { gatewayService } from './service';

@Controller()
class Routes {
  @Get('health/live')
  live() {
    return { status: 'ok' };
  }
}

@Module({ controllers: [Routes] })
class RoutesModule {}

/** The gateway's Content-Security-Policy as a map of directive to sources, for this SDK URL. */
async function policyFor(providerSdkUrl: string): Promise<Map<string, string[]>> {
  const noBuild = mkdtempSync(path.join(tmpdir(), 'csp-'));
  const app = await NestFactory.create<NestExpressApplication>(RoutesModule, {
    logger: false,
  });
  try {
    gatewayService.configure!(app, {
      DASHBOARD_URL: 'http://127.0.0.1:3000/',
      DASHBOARD_DIST_DIR: noBuild,
      TRUST_PROXY_HOPS: 0,
      PROVIDER_SDK_URL: providerSdkUrl,
    } as GatewayEnv);
    await app.init();
    const response = await request(app.getHttpServer() as App)
      .get('/health/live')
      .expect(200);
    const header = String(response.headers['content-security-policy']);
    return new Map(
      header
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .filter(([name]) => name)
        .map(([name, ...sources]) => [name, sources]),
    );
  } finally {
    await app.close();
    rmSync(noBuild, { recursive: true, force: true });
  }
}

describe("the gateway's Content-Security-Policy and the provider's SDK", () => {
  it("allows scripts from this origin and the provider's CDN origin, and nothing else", async () => {
    const policy = await policyFor('https://js.tosspayments.com/v2/standard');
    expect(policy.get('script-src')).toEqual(["'self'", 'https://js.tosspayments.com']);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    // The SDK's origin is a script source only: no frames, connections, styles or images from it.
    for (const [name, sources] of policy) {
      if (name !== 'script-src') expect(sources.join(' ')).not.toContain('tosspayments');
    }
  });

  it('follows the configured SDK: its origin (not its path), e.g. the fake provider in the browser tests', async () => {
    const policy = await policyFor('http://127.0.0.1:45678/v2/standard?x=1');
    expect(policy.get('script-src')).toEqual(["'self'", 'http://127.0.0.1:45678']);
    expect([...policy.values()].flat().filter((source) => source.includes('45678'))).toHaveLength(1);
  });
});
