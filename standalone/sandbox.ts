import { ChatPlatformClient } from '@lib/chat-platform';
import type { ProviderWebhookVerification } from '@lib/contracts';
import { ScheduledPass } from '@lib/runtime';
import { SchedulerRegistry } from '@nestjs/schedule';
import {
  demoGuildSpec,
  FakeChatPlatform,
  FakePaymentProvider,
  type FakePlatformState,
  type FakeProviderState,
} from '@lib/sandbox';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

/** Where the sandbox's users, demo guild and the chat platform's own ids live between starts. */
const STATE_FILE = 'sandbox.json';
const SAVE_EVERY_MS = 10_000;
const MAX_CONTROL_BODY_BYTES = 16 * 1024;

/** Where the public port serves the sandbox provider's card page (the card widget's stand-in). */
export const SANDBOX_CARD_WIDGET_PATH = '/sandbox/card-widget';

/**
 * Where the public port serves the sandbox provider's JS SDK (billing's and the gateway's
 * `PROVIDER_SDK_URL` in standalone mode), which sends the payer to the card page beside it.
 */
export const SANDBOX_SDK_PATH = '/sandbox/v2/standard';

/** The sandbox provider's keys: test keys of a provider that exists only in this process. */
export const SANDBOX_PROVIDER_KEYS = { secretKey: 'test_sk_sandbox', clientKey: 'test_ck_sandbox' };

/** The demo guild and who is who in it. */
export interface DemoGuild {
  guildId: string;
  name: string;
  ownerId: string;
  /** alice, an admin of the guild whose account a raider took: her bot token acts as her. */
  raiderUserId: string;
  raiderToken: string;
}

interface SavedSandbox {
  platform: FakePlatformState;
  provider: FakeProviderState | null;
  demo: DemoGuild;
}

export interface SandboxOptions {
  dataDir: string;
  /** The chat platform's fake (when no DISCORD_BOT_TOKEN is configured). */
  platform: boolean;
  /** The payment provider's fake (when no PROVIDER_SECRET_KEY is configured). */
  provider: boolean;
  /** Where the platform sends the browser back after login (the gateway's /auth/callback). */
  oauth: { clientId: string; clientSecret: string; redirectUri: string };
  /**
   * The provider's webhooks go here: Toss's, unsigned and resent on Toss's schedule (`lookup`), or
   * the spec's envelope signed with `webhookSecret` (`signature`), as the intake is set to believe.
   */
  webhookUrl: string;
  webhookSecret: string;
  webhookStyle: ProviderWebhookVerification;
  botToken: string;
}

/**
 * The fake chat platform and payment provider (the same servers the tests use, real wire formats),
 * seeded with a demo guild whose owner is signed in on the platform, so a new user can log in,
 * snapshot, break, restore and subscribe without any account. Their state is saved in the data
 * folder so a restart finds the same guild, users and cards.
 */
export class Sandbox {
  platform?: FakeChatPlatform;
  provider?: FakePaymentProvider;
  demo?: DemoGuild;
  /**
   * The periodic save, a pass like every service's periodic work. The sandbox belongs to no Nest
   * application (it is standalone mode's own, beside the services), so the registry is its own.
   */
  private readonly saving = new ScheduledPass(new SchedulerRegistry(), 'sandbox-save', () => {
    this.save();
    return Promise.resolve();
  });

  private constructor(private readonly options: SandboxOptions) {}

  static async start(options: SandboxOptions): Promise<Sandbox> {
    const sandbox = new Sandbox(options);
    await sandbox.open();
    return sandbox;
  }

  private get stateFile(): string {
    return path.join(this.options.dataDir, STATE_FILE);
  }

  private async open(): Promise<void> {
    const saved = existsSync(this.stateFile)
      ? (JSON.parse(readFileSync(this.stateFile, 'utf8')) as SavedSandbox)
      : undefined;
    if (this.options.platform) {
      this.platform = new FakeChatPlatform({
        botToken: this.options.botToken,
        botUserId: saved?.platform.botUserId,
      });
      if (saved) {
        this.platform.importState(saved.platform);
        this.demo = saved.demo;
      } else {
        this.demo = seedDemoGuild(this.platform);
      }
      this.platform.registerBotToken(this.demo.raiderToken, this.demo.raiderUserId, 'alice');
      this.platform.registerOAuthApp({
        clientId: this.options.oauth.clientId,
        clientSecret: this.options.oauth.clientSecret,
        redirectUris: [this.options.oauth.redirectUri],
      });
      // The owner is signed in on the platform, so "Login with ..." goes straight through.
      this.platform.loginAs(this.demo.ownerId);
      await this.platform.start();
    }
    if (this.options.provider) {
      this.provider = new FakePaymentProvider({
        ...SANDBOX_PROVIDER_KEYS,
        webhookSecret: this.options.webhookSecret,
        webhookUrl: this.options.webhookUrl,
        webhookStyle: this.options.webhookStyle,
      });
      if (saved?.provider) this.provider.importState(saved.provider);
      await this.provider.start();
    }
    this.save();
    this.saving.every(SAVE_EVERY_MS, { unref: true });
  }

  /** Written atomically (temp file, then rename), so a crash mid-write keeps the previous state. */
  save(): void {
    if (!this.demo || !this.platform) return;
    const state: SavedSandbox = {
      platform: this.platform.exportState(),
      provider: this.provider?.exportState() ?? null,
      demo: this.demo,
    };
    const temporary = `${this.stateFile}.tmp`;
    writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
    renameSync(temporary, this.stateFile);
  }

  async stop(): Promise<void> {
    await this.saving.stop();
    this.save();
    await Promise.all([this.platform?.stop(), this.provider?.stop()]);
  }

  /** What the sandbox offers, for the first screen and `GET /sandbox`. */
  describe(): Record<string, unknown> {
    return {
      chat_platform: this.platform && {
        url: this.platform.url,
        signed_in_user: this.demo?.ownerId,
        demo_guild: this.demo && { platform_guild_id: this.demo.guildId, name: this.demo.name },
        raider: this.demo && { platform_user_id: this.demo.raiderUserId, bot_token: this.demo.raiderToken },
      },
      payment_provider: this.provider && { url: this.provider.url },
      controls: {
        'POST /sandbox/login-as':
          'body {"platform_user_id"}: who is signed in on the platform for the next login',
        'POST /sandbox/raid': "a raid on the demo guild through the platform's API, as alice",
        'POST /sandbox/cards':
          'body {"customer_key"} from /api/v1/billing/prepare: the card widget, gives the auth_key',
        [`GET ${SANDBOX_SDK_PATH}`]:
          "the provider's JS SDK the checkout loads: requestBillingAuth opens the card page",
        [`GET ${SANDBOX_CARD_WIDGET_PATH}`]:
          'the card page the SDK sends a payer to: test cards that succeed, are declined, or answer late',
      },
    };
  }

  /** The sandbox's control routes under /sandbox on the public port. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    void this.route(req, res).catch((error: unknown) =>
      problem(res, 500, 'Sandbox error', error instanceof Error ? error.message : String(error)),
    );
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    if (pathname === SANDBOX_CARD_WIDGET_PATH) {
      const provider = this.need(res, this.provider, 'payment provider');
      return provider?.serveCardWidget(req, res);
    }
    if (pathname === SANDBOX_SDK_PATH) {
      const provider = this.need(res, this.provider, 'payment provider');
      return provider?.serveSdkScript(req, res);
    }
    const route = `${req.method} ${pathname}`;
    switch (route) {
      case 'GET /sandbox':
        return json(res, 200, this.describe());
      case 'POST /sandbox/login-as': {
        const platform = this.need(res, this.platform, 'chat platform');
        if (!platform) return;
        const body = await readJson(req);
        const userId = body?.platform_user_id;
        if (typeof userId !== 'string' || !/^\d{17,20}$/.test(userId)) {
          return problem(res, 400, 'Bad request', 'platform_user_id must be a snowflake');
        }
        platform.addUser(userId);
        platform.loginAs(userId);
        return json(res, 200, { signed_in_user: userId });
      }
      case 'POST /sandbox/raid': {
        const platform = this.need(res, this.platform, 'chat platform');
        if (!platform || !this.demo) return;
        const changed = await raidDemoGuild(platform, this.demo);
        this.save();
        return json(res, 200, { changed });
      }
      case 'POST /sandbox/cards': {
        const provider = this.need(res, this.provider, 'payment provider');
        if (!provider) return;
        const body = await readJson(req);
        const customerKey = body?.customer_key;
        if (typeof customerKey !== 'string' || customerKey.length === 0 || customerKey.length > 300) {
          return problem(
            res,
            400,
            'Bad request',
            'customer_key must be the one /api/v1/billing/prepare gave',
          );
        }
        const cardNumber = typeof body?.card_number === 'string' ? body.card_number : undefined;
        try {
          return json(res, 200, { auth_key: provider.authorizeCard({ customerKey, cardNumber }) });
        } catch (error) {
          return problem(res, 400, 'Card refused', error instanceof Error ? error.message : String(error));
        }
      }
      default:
        return problem(res, 404, 'Not found', `no sandbox route ${route}`);
    }
  }

  private need<T>(res: ServerResponse, part: T | undefined, name: string): T | undefined {
    if (!part)
      problem(res, 409, 'Not in the sandbox', `the ${name} is the real one: credentials are configured`);
    return part;
  }
}

/** Seeds the demo guild and names alice (an admin) as the account a raider takes over. */
export function seedDemoGuild(platform: FakeChatPlatform): DemoGuild {
  const spec = demoGuildSpec();
  const seeded = platform.seedGuild(spec);
  const demo: DemoGuild = {
    guildId: seeded.guildId,
    name: spec.name,
    ownerId: seeded.ownerId,
    raiderUserId: seeded.members.alice,
    raiderToken: `sandbox-raider-${randomBytes(12).toString('hex')}`,
  };
  platform.registerBotToken(demo.raiderToken, demo.raiderUserId, 'alice');
  return demo;
}

/** What a raider does with alice's token, through the platform's REST API (so it is audited). */
export async function raidDemoGuild(platform: FakeChatPlatform, demo: DemoGuild): Promise<string[]> {
  const raider = new ChatPlatformClient({ apiBaseUrl: `${platform.url}/api`, botToken: demo.raiderToken });
  const guild = platform.guild(demo.guildId);
  const roleNamed = (name: string) => guild.roles.find((role) => role.name === name);
  const channelNamed = (name: string) => guild.channels.find((channel) => channel.name === name);
  const changed: string[] = [];
  for (const name of ['Moderator', 'Helper']) {
    const role = roleNamed(name);
    if (!role) continue;
    await raider.deleteRole(demo.guildId, role.id);
    changed.push(`deleted role ${name}`);
  }
  for (const name of ['rules', 'staff-chat', 'announcements']) {
    const channel = channelNamed(name);
    if (!channel) continue;
    await raider.deleteChannel(channel.id);
    changed.push(`deleted channel #${name}`);
  }
  const general = channelNamed('general');
  if (general) {
    await raider.updateChannel(general.id, { name: 'raided', topic: 'gg' });
    changed.push('renamed #general to #raided');
  }
  await raider.createChannel(demo.guildId, { name: 'spam', type: 0 });
  changed.push('created channel #spam');
  return changed;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CONTROL_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** RFC 9457, as the product's own routes answer. */
function problem(res: ServerResponse, status: number, title: string, detail: string): void {
  res
    .writeHead(status, { 'content-type': 'application/problem+json' })
    .end(JSON.stringify({ type: 'about:blank', title, status, detail }));
}
