import '../../support/test-env';
import { SDK_SCRIPT_PATH } from '@lib/sandbox';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { seedDemoGuild } from '../../../standalone/sandbox';
import { type AppProcess, freePort, startApp } from '../../support/app-process';
import { BillingStack, TEST_PROVIDER_TIMEOUT_MS } from '../../support/billing-stack';
import { openDataSource } from '../../support/database';
import { skipNotifierBacklog } from '../../support/notifier-backlog';
import { startControlServer } from './control-server';
import { STACK_LINE_PREFIX, type StackInfo } from './stack-info';

/**
 * The distributed product for the browser suite: every app its own process on the real Postgres,
 * Redis, Kafka and Temporal (recovery with its restore worker and live sync), the fake platform
 * and provider in this process, and the gateway serving the dashboard build on its own origin.
 * Seeds the demo guild as the sandbox does, plus a guild its owner manages without the bot.
 */
class BrowserStack extends BillingStack {
  notifier!: AppProcess;
  intake!: AppProcess;
  gateway!: AppProcess;

  constructor() {
    super({ worker: true, liveSync: true });
  }

  override async start(): Promise<void> {
    await super.start();
    const dataSource = await openDataSource();
    try {
      await skipNotifierBacklog(dataSource);
    } finally {
      await dataSource.destroy();
    }
    // The provider's webhooks, as in production: they settle a charge billing's time-out gave up on.
    this.intake = await startApp('webhook-intake', { BILLING_URL: this.billing.url });
    this.provider.setWebhookUrl(`${this.intake.url}/webhooks/provider`);
    this.provider.setSlowCardDelay(TEST_PROVIDER_TIMEOUT_MS + 4_000);
    this.notifier = await startApp('notifier', {
      DISCORD_API_URL: `${this.platform.url}/api`,
      RECOVERY_URL: this.recovery.url,
      LICENSING_URL: this.licensing.url,
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    this.platform.registerOAuthApp({
      clientId: process.env.DISCORD_CLIENT_ID!,
      clientSecret: process.env.DISCORD_CLIENT_SECRET!,
      redirectUris: [`${url}/auth/callback`],
    });
    this.gateway = await startApp(
      'gateway',
      {
        DISCORD_API_URL: `${this.platform.url}/api`,
        DISCORD_OAUTH_URL: this.platform.url,
        OAUTH_REDIRECT_URI: `${url}/auth/callback`,
        DASHBOARD_URL: `${url}/`,
        RECOVERY_URL: this.recovery.url,
        BILLING_URL: this.billing.url,
        LICENSING_URL: this.licensing.url,
        NOTIFIER_URL: this.notifier.url,
        // The fake provider's SDK, which billing hands out: the CSP must let the checkout load it.
        PROVIDER_SDK_URL: `${this.provider.url}${SDK_SCRIPT_PATH}`,
        RATE_LIMIT_IP_PER_MINUTE: '100000',
        RATE_LIMIT_SESSION_PER_MINUTE: '100000',
      },
      { port },
    );
  }

  override async stop(): Promise<void> {
    await Promise.all([this.gateway?.stop(), this.notifier?.stop(), this.intake?.stop()]);
    await super.stop();
  }
}

async function main(): Promise<void> {
  // The integration database at the latest migrations, as the integration suite's setup does.
  execFileSync(process.execPath, ['-r', '@swc-node/register', 'scripts/migrate.ts'], {
    cwd: path.resolve(__dirname, '../../..'),
    env: process.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stack = new BrowserStack();
  await stack.start();
  const demo = seedDemoGuild(stack.platform);
  const botless = stack.platform.seedGuild({
    name: 'Guild without the bot',
    owner: { id: demo.ownerId },
    bot: { member: false },
  });
  stack.platform.loginAs(demo.ownerId);
  const control = await startControlServer(stack.platform, stack.provider, demo, {
    guildId: botless.guildId,
    name: 'Guild without the bot',
  });
  const info: StackInfo = { kind: 'distributed', url: stack.gateway.url, controlUrl: control.url };
  process.stdout.write(`${STACK_LINE_PREFIX}${JSON.stringify(info)}\n`);

  const stop = () => {
    control.server.close();
    void stack.stop().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`serve-distributed failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
