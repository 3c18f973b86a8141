import type { FakeChatPlatform, FakePaymentProvider } from '@lib/sandbox';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DemoGuild, raidDemoGuild } from '../../../standalone/sandbox';
import type { SandboxState } from './stack-info';

/**
 * The browser suite's hands on the outside world, over HTTP on loopback: the same controls the
 * sandbox of `npm start` offers (who is signed in on the platform, the raid, the card widget),
 * plus what a test needs to arrange (a slow platform, a guild changed behind the preview's back,
 * the guild's state to compare with a snapshot). The same for both stacks.
 */
export async function startControlServer(
  platform: FakeChatPlatform,
  provider: FakePaymentProvider,
  demo: DemoGuild,
  botlessGuild: SandboxState['botlessGuild'],
): Promise<{ url: string; server: Server }> {
  const members = (): Record<string, string> => {
    const guild = platform.guild(demo.guildId);
    const users = platform.exportState().users;
    return Object.fromEntries(
      guild.members.flatMap((member) => {
        const user = users.find((candidate) => candidate.id === member.user_id);
        return user ? [[user.username, user.id]] : [];
      }),
    );
  };
  const routes: Record<string, (body: Record<string, unknown>) => unknown> = {
    'GET /state': (): SandboxState => ({
      platformUrl: platform.url,
      demo: { ...demo, members: members() },
      botlessGuild,
    }),
    'POST /login-as': (body) => {
      platform.loginAs(String(body.platform_user_id));
      return {};
    },
    'POST /raid': async () => ({ changed: await raidDemoGuild(platform, demo) }),
    // A guild of the demo owner with the bot and one more administrator, for a scenario of its own.
    'POST /seed-guild': (body) => {
      const name = String(body.name);
      const admin = `admin-of-${name.toLowerCase().replace(/\W+/g, '-')}`;
      const seeded = platform.seedGuild({
        name,
        owner: { id: demo.ownerId },
        roles: [{ name: 'Admin', permissions: PermissionFlagsBits.Administrator }],
        members: [{ username: admin, roles: ['Admin'] }],
        channels: [{ name: 'general' }],
      });
      return { guildId: seeded.guildId, adminId: seeded.members[admin] };
    },
    'POST /cards': (body) => ({
      auth_key: provider.authorizeCard({
        customerKey: String(body.customer_key),
        cardNumber: typeof body.card_number === 'string' ? body.card_number : undefined,
      }),
    }),
    // Every charge the provider made, and every billing key it issued (no secrets: counts and digits).
    'GET /provider-records': () => ({
      charges: provider.charges().map((charge) => ({ orderId: charge.orderId, status: charge.status })),
      issued: provider.billingKeys().length,
    }),
    'GET /guild': () => platform.guild(demo.guildId),
    'POST /rename-channel': (body) => {
      platform.mutate(demo.guildId, (guild) => {
        const channel = guild.channels.find((candidate) => candidate.name === body.from);
        if (!channel) throw new Error(`no channel ${String(body.from)}`);
        channel.name = String(body.to);
      });
      return {};
    },
    // Role creations answer 429 `times` times (retry after 1 s): a restore that takes a while.
    'POST /slow-role-creation': (body) => {
      platform.injectFailure({
        method: 'POST',
        path: `/guilds/${demo.guildId}/roles`,
        status: 429,
        times: Number(body.times ?? 3),
        retryAfterSeconds: 1,
      });
      return {};
    },
    // The DMs the platform delivered to one user, oldest first.
    'POST /dms': (body) => ({
      dms: platform
        .dmLog()
        .filter((dm) => dm.recipientId === String(body.recipient))
        .map((dm) => ({ content: dm.content, sent_at: dm.sentAt.toISOString() })),
    }),
    'POST /clear-failures': () => {
      platform.clearFailures();
      return {};
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const route = routes[`${req.method} ${(req.url ?? '/').split('?')[0]}`];
      if (!route) return answer(res, 404, { error: `no control ${req.method} ${req.url}` });
      const chunks: Buffer[] = [];
      for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      answer(res, 200, await route(text ? (JSON.parse(text) as Record<string, unknown>) : {}));
    })().catch((error: unknown) => answer(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
