import { ChatPlatformClient, ChatPlatformError } from '@lib/chat-platform';
import { generateKeyPairSync, verify } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoGuildSpec } from './demo-guild';
import { FakeChatPlatform } from './fake-chat-platform';
import type { SeededGuild } from './guild-seed';
import { sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

type Answer = (interaction: Record<string, unknown>) => Promise<{ status: number; body?: unknown }>;

/**
 * An application's interactions endpoint on loopback: it checks the platform's Ed25519 signature
 * with the application's public key, answers PING with PONG, and a command as the test says.
 */
class TestEndpoint {
  readonly keys = generateKeyPairSync('ed25519');
  received: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
  answer: Answer = () => Promise.resolve({ status: 200, body: { type: 5, data: { flags: 64 } } });
  checkSignatures = true;
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/interactions`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const signature = String(req.headers['x-signature-ed25519'] ?? '');
    const timestamp = String(req.headers['x-signature-timestamp'] ?? '');
    const valid = verify(
      null,
      Buffer.concat([Buffer.from(timestamp), raw]),
      this.keys.publicKey,
      Buffer.from(signature, 'hex'),
    );
    const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    let reply: { status: number; body?: unknown };
    if (this.checkSignatures && !valid) reply = { status: 401 };
    else if (body.type === 1) reply = { status: 200, body: { type: 1 } };
    else {
      this.received.push({ headers: req.headers, body });
      reply = await this.answer(body);
    }
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
  }
}

/** Interaction delivery, the 3-second deadline and the edit-original webhook, on loopback. */
describe('FakeChatPlatform interactions', () => {
  const DEADLINE_MS = 400;
  const sut = fakeForSuite(new FakeChatPlatform({ interactionDeadlineMs: DEADLINE_MS }));
  const endpoint = new TestEndpoint();
  let client: ChatPlatformClient;
  let seeded: SeededGuild;

  beforeAll(async () => {
    await endpoint.start();
    client = new ChatPlatformClient({ apiBaseUrl: `${sut.url}/api`, botToken: sut.botToken });
  });
  afterAll(() => endpoint.stop());
  beforeEach(async () => {
    seeded = sut.seedGuild(demoGuildSpec());
    endpoint.received = [];
    endpoint.checkSignatures = true;
    endpoint.answer = () => Promise.resolve({ status: 200, body: { type: 5, data: { flags: 64 } } });
    await sut.setInteractionsEndpoint({ url: endpoint.url, signingKey: endpoint.keys.privateKey });
  });

  const snapshotCreate = () => ({
    guildId: seeded.guildId,
    userId: seeded.ownerId,
    name: 'snapshot',
    options: [{ type: 1, name: 'create', options: [] }],
  });

  it('refuses to save an endpoint that does not check signatures', async () => {
    endpoint.checkSignatures = false;
    await expect(
      sut.setInteractionsEndpoint({ url: endpoint.url, signingKey: endpoint.keys.privateKey }),
    ).rejects.toThrow(/invalid signature with 200, not 401/);
  });

  it('delivers a signed command as the documented Interaction object', async () => {
    const record = await sut.sendCommand(snapshotCreate());
    expect(endpoint.received).toHaveLength(1);
    const [{ body }] = endpoint.received;
    expect(body).toMatchObject({
      id: record.id,
      application_id: sut.botUserId,
      type: 2,
      token: record.token,
      version: 1,
      guild_id: seeded.guildId,
      channel_id: record.channelId,
      channel: { id: record.channelId, type: 0 },
      member: { user: { id: seeded.ownerId }, roles: [], permissions: expect.stringMatching(/^\d+$/) },
      app_permissions: expect.stringMatching(/^\d+$/),
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': seeded.guildId },
      context: 0,
      data: { name: 'snapshot', type: 1, options: [{ type: 1, name: 'create', options: [] }] },
    });
    const second = await sut.sendCommand(snapshotCreate());
    expect(second.token).not.toBe(record.token);
    expect(second.id).not.toBe(record.id);
  });

  it('takes a deferred answer in time, then the edit of the original message without a bot token', async () => {
    const record = await sut.sendCommand(snapshotCreate());
    expect(record).toMatchObject({
      outcome: 'acknowledged',
      withinDeadline: true,
      initialResponse: { status: 200, type: 5, flags: 64 },
    });
    const message = await client.editInteractionReply(sut.botUserId, record.token, 'Snapshot saved');
    expect(message).toMatchObject({ content: 'Snapshot saved', channel_id: record.channelId });
    const edited = await sut.interactionEdited(record.id);
    expect(edited.edits).toEqual([expect.objectContaining({ content: 'Snapshot saved' })]);
    expect(edited.originalMessage).toMatchObject({ content: 'Snapshot saved', flags: 64 });
    const raw = await sendJson(
      `${sut.url}/api/v10/webhooks/${sut.botUserId}/${record.token}/messages/@original`,
      'GET',
    );
    expect(raw).toMatchObject({
      status: 200,
      body: {
        // The response is a message of its own; the interaction is named in its metadata.
        id: edited.originalMessage!.id,
        type: 20,
        content: 'Snapshot saved',
        flags: 64,
        webhook_id: sut.botUserId,
        author: { id: sut.botUserId, bot: true },
        interaction_metadata: { id: record.id, type: 2, user: { id: seeded.ownerId } },
        edited_timestamp: expect.any(String),
      },
    });
    expect(edited.originalMessage!.id).not.toBe(record.id);
  });

  it('records a first answer after the deadline as failed and refuses its edit as Discord does', async () => {
    endpoint.answer = async () => {
      // The endpoint is slow: it answers only after the platform's deadline has passed.
      await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS + 100));
      return { status: 200, body: { type: 5, data: { flags: 64 } } };
    };
    const record = await sut.sendCommand(snapshotCreate());
    expect(record).toMatchObject({
      outcome: 'failed',
      withinDeadline: false,
      failure: expect.stringMatching(`no initial response within ${DEADLINE_MS} ms`),
    });
    expect(record.initialResponse!.afterMs).toBeGreaterThan(DEADLINE_MS);
    const refused = await client.editInteractionReply(sut.botUserId, record.token, 'too late').then(
      () => undefined,
      (error: unknown) => error as ChatPlatformError,
    );
    expect(refused).toBeInstanceOf(ChatPlatformError);
    if (!refused) return;
    expect(refused).toMatchObject({ code: 'NotFound', details: { status: 404, platform_code: 10015 } });
    // The token is a credential: the error names the route, not the token.
    expect(JSON.stringify({ message: refused.message, details: refused.details })).not.toContain(
      record.token,
    );
    expect(sut.interaction(record.id)?.edits).toEqual([]);
  });

  it('records a refusal or a wrong answer of the endpoint as a failed interaction', async () => {
    endpoint.answer = () => Promise.resolve({ status: 500, body: { message: 'boom' } });
    expect(await sut.sendCommand(snapshotCreate())).toMatchObject({
      outcome: 'failed',
      failure: 'the endpoint answered 500',
    });
    endpoint.answer = () => Promise.resolve({ status: 200, body: { type: 4, data: { content: '' } } });
    expect((await sut.sendCommand(snapshotCreate())).outcome).toBe('failed');
  });

  it('validates the edit as Edit Webhook Message does', async () => {
    const record = await sut.sendCommand(snapshotCreate());
    const path = `${sut.url}/api/v10/webhooks/${sut.botUserId}/${record.token}/messages/@original`;
    const tooLong = await sendJson(path, 'PATCH', { content: 'x'.repeat(2001) });
    expect(tooLong).toMatchObject({
      status: 400,
      body: { code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH' }] } } },
    });
    const badMentions = await sendJson(path, 'PATCH', { content: 'x', allowed_mentions: { parse: ['all'] } });
    expect(badMentions).toMatchObject({ status: 400, body: { code: 50035 } });
    // Still a loading message: an edit that leaves it empty is refused.
    expect(await sendJson(path, 'PATCH', {})).toMatchObject({ status: 400, body: { code: 50006 } });
    expect(await sendJson(path, 'PATCH', { content: 'ok', allowed_mentions: { parse: [] } })).toMatchObject({
      status: 200,
      body: { content: 'ok' },
    });
  });
});
