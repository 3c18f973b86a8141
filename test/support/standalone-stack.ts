import { FakeChatPlatform, FakePaymentProvider } from '@lib/sandbox';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Standalone, startStandalone } from '../../standalone/standalone';
import {
  type GatewayRequestOptions,
  type GatewayResponse,
  type LoggedIn,
  loginThroughGateway,
  requestGateway,
} from './gateway-stack';

/**
 * The whole product in this test process, as `npm start` assembles it (in-process events and
 * restores, Postgres for sessions and idempotency keys), on the integration database and with the
 * test's own fakes, so scenarios written for the distributed stack run against it unchanged.
 */
export class StandaloneStack {
  readonly platform = new FakeChatPlatform();
  readonly provider = new FakePaymentProvider();
  readonly clientId = '100000000000000077';
  gateway!: { url: string };
  private standalone: Standalone | undefined;
  private readonly dataDir = mkdtempSync(path.join(tmpdir(), 'guildkeeper-standalone-stack-'));

  async start(): Promise<void> {
    await Promise.all([this.platform.start(), this.provider.start()]);
    this.standalone = await startStandalone({
      env: {
        DATABASE_URL: process.env.DATABASE_URL,
        DISCORD_CLIENT_ID: this.clientId,
        LOG_LEVEL: 'error',
        // Every test request comes from 127.0.0.1, as in GatewayStack.
        RATE_LIMIT_IP_PER_MINUTE: '100000',
        RATE_LIMIT_SESSION_PER_MINUTE: '100000',
        LIVE_SYNC_ENABLED: 'false',
      },
      dataDir: this.dataDir,
      port: 0,
      host: '127.0.0.1',
      log: () => undefined,
      fakes: { platform: this.platform, provider: this.provider },
    });
    this.gateway = { url: this.standalone.url };
  }

  async stop(): Promise<void> {
    await this.standalone?.stop();
    await Promise.all([this.platform.stop(), this.provider.stop()]);
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  login(platformUserId: string): Promise<LoggedIn> {
    return loginThroughGateway(this.gateway.url, this.platform, platformUserId);
  }

  request(method: string, path: string, options: GatewayRequestOptions = {}): Promise<GatewayResponse> {
    return requestGateway(this.gateway.url, method, path, options);
  }
}
