import { CHANNEL_TYPE, ChatPlatformClient, ChatPlatformError, type PlatformRole } from '@lib/chat-platform';
import { FakeChatPlatform, type SeededGuild, demoGuildSpec } from '@lib/sandbox';
import { REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { PlatformOAuthClient } from '../../apps/gateway/src/auth/platform-oauth.client';
import { SNAPSHOT_DESCRIPTION_MAX } from '../../apps/recovery/src/interactions/snapshot-command';
import { RESTORED_CHANNEL_FIELDS, RESTORED_ROLE_FIELDS } from '../../apps/recovery/src/restore/restore-diff';
import {
  COMMAND_INTERACTION,
  ERROR_RESPONSE,
  INTERACTION_CALLBACKS,
  ROUTE_CONTRACTS,
  type RouteContract,
  contractFor,
  numericBitfields,
} from './support/discord-schemas';
import { type ProductInteractionsEndpoint, startProductInteractions } from './support/product-interactions';
import { type Exchange, RecordingProxy } from './support/recording-proxy';
import { checkAgainst } from './support/schema-check';

const CLIENT_ID = 'contract-app';
const CLIENT_SECRET = 'contract-secret';
const REDIRECT_URI = 'http://127.0.0.1/auth/callback';
const REASON = { reason: 'contract suite' };

/** A guild with a bit of everything the product reads: every channel type, overwrites, members, bans. */
function richGuildSpec() {
  const spec = demoGuildSpec('Contract Guild');
  spec.members = spec.members!.slice(0, 12);
  spec.bans = [{ username: 'raider-1', reason: 'nuked the guild' }, { username: 'raider-2' }];
  return spec;
}

/**
 * Every public method of the product's platform client: the type check fails when one is added
 * and not listed here, and the suite fails when a listed one is not driven, so no route the product
 * calls can go without a contract.
 */
const CLIENT_METHODS = {
  getCurrentUser: true,
  getGuild: true,
  getGuildState: true,
  getRoles: true,
  getMember: true,
  listMembers: true,
  listBans: true,
  readAuditLog: true,
  removeBan: true,
  createRole: true,
  updateRole: true,
  deleteRole: true,
  setRolePositions: true,
  createChannel: true,
  updateChannel: true,
  deleteChannel: true,
  setChannelPositions: true,
  putPermissionOverride: true,
  deletePermissionOverride: true,
  updateGuildSettings: true,
  addMemberRole: true,
  removeMemberRole: true,
  setMemberRoles: true,
  kickMember: true,
  banMember: true,
  getBotRoleIds: true,
  setIncidentActions: true,
  sendDirectMessage: true,
  editInteractionReply: true,
  listEmojis: true,
  listStickers: true,
  createEmoji: true,
  updateEmoji: true,
  deleteEmoji: true,
  createSticker: true,
  updateSticker: true,
  deleteSticker: true,
  readEmojiImage: true,
  readStickerImage: true,
  readGuildImage: true,
  readRoleIcon: true,
  listAutoModRules: true,
  createAutoModRule: true,
  updateAutoModRule: true,
  deleteAutoModRule: true,
  getWelcomeScreen: true,
  modifyWelcomeScreen: true,
  getOnboarding: true,
  modifyOnboarding: true,
  listWebhooks: true,
  createWebhook: true,
  updateWebhook: true,
  deleteWebhook: true,
  readWebhookAvatar: true,
} satisfies Record<keyof ChatPlatformClient, true>;

/** The client, noting the name of each of its methods called from outside it. */
function notingCalls<T extends object>(target: T, called: Set<string>): T {
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key);
      if (typeof key !== 'string' || typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        called.add(key);
        return (value as (...params: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

/** Mismatches that differ only in an array index (every member lacking a field) as one line, counted. */
function collapse(lines: string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const key = line.replace(/(?<=[ .])\d+(?=[.:])/g, '*');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([line, count]) => (count > 1 ? `${line} (${count} times)` : line));
}

/** The fields of a read role or channel that a restore writes back, as the restore picks them. */
function pick<T extends object>(value: T, fields: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([field]) => fields.includes(field))) as Partial<T>;
}

/**
 * Every route the product calls, driven by the product's own clients through a recording proxy, so
 * the request bodies are the ones the product sends and the answers are the fake's raw JSON: each
 * answer must match Discord's published schema for the route (discord-api-spec) loosely, every
 * required field present and typed, and strictly, no field Discord does not send; each request body
 * must match the route's request schema.
 */
describe('the fake platform and the product against the published Discord schemas', () => {
  const platform = new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } });
  let proxy: RecordingProxy;
  let client: ChatPlatformClient;
  let seeded: SeededGuild;
  const calledMethods = new Set<string>();
  /** The recovery app's interactions endpoint, and a recording proxy the platform reaches it through. */
  let product: ProductInteractionsEndpoint;
  let endpointProxy: RecordingProxy;

  beforeAll(async () => {
    await platform.start();
    proxy = new RecordingProxy(platform.url);
    await proxy.start();
    client = notingCalls(
      // The CDN is not the API: its reads go straight to the fake's, outside the recorded exchanges.
      new ChatPlatformClient({
        apiBaseUrl: `${proxy.url}/api`,
        cdnBaseUrl: platform.cdnUrl,
        botToken: platform.botToken,
      }),
      calledMethods,
    );
    product = await startProductInteractions(client);
    endpointProxy = new RecordingProxy(product.url);
    await endpointProxy.start();
    await platform.setInteractionsEndpoint({
      url: `${endpointProxy.url}/interactions`,
      signingKey: product.signingKey,
    });
    seeded = platform.seedGuild(richGuildSpec());
    await exerciseEveryRoute();
    // Two seconds alone; the machine running the whole of npm test may be far busier.
  }, 60_000);

  afterAll(async () => {
    await endpointProxy?.stop();
    await product?.close();
    await proxy.stop();
    await platform.stop();
  });

  /** What the product does on the platform: snapshots, a restore of every kind of thing, a login, a DM. */
  async function exerciseEveryRoute() {
    const guildId = seeded.guildId;
    await client.getCurrentUser();
    await client.getGuild(guildId);
    const state = await client.getGuildState(guildId);
    const roles = await client.getRoles(guildId);
    await client.getMember(guildId, seeded.members.alice);
    await client.listMembers(guildId);
    await client.listBans(guildId);

    // Roles as a restore writes them: created from a snapshot's fields, updated, moved, deleted.
    const source = roles.find((role) => role.name === 'VIP')!;
    const created: PlatformRole = await client.createRole(
      guildId,
      pick(source, RESTORED_ROLE_FIELDS),
      REASON,
    );
    await client.updateRole(guildId, created.id, pick(source, RESTORED_ROLE_FIELDS), REASON);
    await client.setRolePositions(guildId, [{ id: created.id, position: 2 }], REASON);

    // Every channel type, each recreated with all its restored fields and overrides, as a restore does.
    const categoryIds = new Map<string, string>();
    const ordered = [...state.channels].sort(
      (a, b) => Number(b.type === CHANNEL_TYPE.category) - Number(a.type === CHANNEL_TYPE.category),
    );
    const createdChannels: string[] = [];
    for (const channel of ordered) {
      const overrides = state.permission_overrides
        .filter((override) => override.channel_id === channel.id)
        .map(({ id, type, allow, deny }) => ({ id, type, allow, deny }));
      const copy = await client.createChannel(
        guildId,
        {
          ...pick(channel, RESTORED_CHANNEL_FIELDS),
          name: `${channel.name}-copy`,
          type: channel.type,
          position: channel.position,
          parent_id: channel.parent_id === null ? null : (categoryIds.get(channel.parent_id) ?? null),
          permission_overrides: overrides,
        },
        REASON,
      );
      if (channel.type === CHANNEL_TYPE.category) categoryIds.set(channel.id, copy.id);
      createdChannels.push(copy.id);
    }
    const text = state.channels.find((channel) => channel.name === 'general')!;
    await client.updateChannel(text.id, pick({ ...text, topic: 'Changed' }, RESTORED_CHANNEL_FIELDS), REASON);
    await client.setChannelPositions(
      guildId,
      [{ id: createdChannels[0], position: 1, parent_id: null }],
      REASON,
    );
    await client.putPermissionOverride(
      { channel_id: text.id, id: created.id, type: 'role', allow: '1024', deny: '2048' },
      REASON,
    );
    await client.putPermissionOverride(
      { channel_id: text.id, id: seeded.members.bob, type: 'member', allow: '0', deny: '1024' },
      REASON,
    );
    await client.deletePermissionOverride(text.id, created.id, REASON);
    await client.deleteChannel(createdChannels.at(-1)!, REASON);

    await client.updateGuildSettings(
      guildId,
      {
        name: 'Contract Guild Restored',
        description: 'Back as it was',
        verification_level: 1,
        default_message_notifications: 0,
        explicit_content_filter: 1,
        afk_channel_id: null,
        afk_timeout: 300,
        system_channel_flags: 0,
        preferred_locale: 'en-US',
      },
      REASON,
    );

    const memberId = seeded.members.carol;
    await client.addMemberRole(guildId, memberId, created.id, REASON);
    await client.removeMemberRole(guildId, memberId, created.id, REASON);
    await client.setMemberRoles(guildId, memberId, [seeded.roles.Member, created.id], REASON);
    await client.removeBan(guildId, seeded.bans['raider-2'], REASON);
    await client.deleteRole(guildId, created.id, REASON);

    // The notifier's DMs, with and without the nonce that makes a resend idempotent.
    await client.sendDirectMessage(seeded.ownerId, { content: 'Your restore finished' });
    await client.sendDirectMessage(seeded.ownerId, {
      content: 'Payment received',
      embeds: [
        {
          title: 'Receipt',
          description: 'ENTERPRISE',
          color: 0x2ecc71,
          fields: [{ name: 'Plan', value: 'ENTERPRISE' }],
        },
      ],
      nonce: 'payment-42',
    });

    // Live sync's shard plan, read as GatewayShards reads it.
    const rest = new REST({ version: '10', api: `${proxy.url}/api` }).setToken(platform.botToken);
    await rest.get(Routes.gatewayBot());

    // A slash command delivered to the product's endpoint: answered at once with a deferred reply,
    // whose loading message the product then edits with the outcome through the interaction's token.
    const snapshotCreate = (options: unknown[]) => ({
      guildId,
      userId: seeded.ownerId,
      name: 'snapshot',
      options: [{ type: 1, name: 'create', options }],
    });
    const command = await platform.sendCommand(snapshotCreate([]));
    expect(command.outcome).toBe('acknowledged');
    await platform.interactionEdited(command.id, { timeoutMs: 10_000 });
    await rest.get(Routes.webhookMessage(platform.botUserId, command.token, '@original'), { auth: false });
    // A command the product refuses at once, with a message (type 4) rather than a deferred reply.
    const tooLong = { type: 3, name: 'description', value: 'x'.repeat(SNAPSHOT_DESCRIPTION_MAX + 1) };
    expect((await platform.sendCommand(snapshotCreate([tooLong]))).outcome).toBe('acknowledged');

    // "Login with ...": the gateway app's OAuth client, its token exchange, profile and guild list.
    platform.registerOAuthApp({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [REDIRECT_URI],
    });
    platform.loginAs(seeded.ownerId);
    const oauth = new PlatformOAuthClient({
      apiBaseUrl: `${proxy.url}/api`,
      oauthBaseUrl: platform.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
    });
    const consent = await fetch(oauth.authorizeUrl('state-1'), { redirect: 'manual' });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const login = await oauth.loginWithCode(code);
    await oauth.guildsOf(login.access.token);
    // AntiNuke's containment: the bot's own role found, a raider banned and kicked, a lockdown.
    expect(await client.getBotRoleIds(guildId, platform.botUserId)).toEqual(expect.any(Array));
    const raiderId = seeded.members.dave;
    await client.banMember(guildId, raiderId, REASON);
    await client.kickMember(guildId, seeded.members.erin, REASON);
    const until = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    await client.setIncidentActions(
      guildId,
      { invites_disabled_until: until, dms_disabled_until: until },
      REASON,
    );
    await client.setIncidentActions(
      guildId,
      { invites_disabled_until: null, dms_disabled_until: null },
      REASON,
    );
    // The audit log as the product reads it back (newest first, paged with `before`).
    const [newest] = await client.readAuditLog(guildId, { limit: 5 });
    await client.readAuditLog(guildId, { before: newest.id, limit: 100 });
    // What only tests and the sandbox call: a ban's read with message deletion, a channel read, the audit log.
    await rest.get(Routes.guildBan(guildId, raiderId));
    await rest.get(Routes.channel(text.id));
    await rest.get(Routes.guildAuditLog(guildId));
    // A snapshot's emojis, stickers and images read, and put back as a restore does: made from
    // the kept images, renamed, given their roles, deleted.
    platform.addEmoji(guildId, 'party');
    platform.addSticker(guildId, 'wave');
    const [emoji] = await client.listEmojis(guildId);
    const [sticker] = await client.listStickers(guildId);
    const emojiImage = await client.readEmojiImage(emoji);
    const stickerFile = await client.readStickerImage(sticker);
    const icon = `data:${emojiImage.content_type};base64,${emojiImage.bytes.toString('base64')}`;
    const withIcon = await client.updateGuildSettings(guildId, { icon }, REASON);
    await client.readGuildImage(guildId, 'icon', withIcon.icon!);
    // A role's icon as a restore writes it (the kept image as a data URI) and a snapshot reads it.
    const iconic = await client.createRole(guildId, { name: 'Iconic', icon }, REASON);
    const roleIcon = await client.readRoleIcon(iconic.id, iconic.icon!);
    expect(roleIcon.bytes.equals(emojiImage.bytes)).toBe(true);
    await client.updateRole(guildId, iconic.id, { icon: null }, REASON);
    await client.deleteRole(guildId, iconic.id, REASON);
    await client.deleteEmoji(guildId, emoji.id, REASON);
    await client.deleteSticker(guildId, sticker.id, REASON);
    const remade = await client.createEmoji(
      guildId,
      { name: emoji.name, image: icon, roles: [seeded.roles.Member] },
      REASON,
    );
    await client.updateEmoji(guildId, remade.id, { name: 'party_back', roles: [] }, REASON);
    const restuck = await client.createSticker(
      guildId,
      { name: sticker.name, description: '', tags: sticker.tags, file: stickerFile },
      REASON,
    );
    await client.updateSticker(guildId, restuck.id, { description: 'Back as it was' }, REASON);
    await rest.get(Routes.guildEmoji(guildId, remade.id));
    await rest.get(Routes.guildSticker(guildId, restuck.id));
    // AutoMod rules as a snapshot reads them and a restore writes them back.
    const rule = await client.createAutoModRule(
      guildId,
      {
        name: 'No spam links',
        event_type: 1,
        trigger_type: 1,
        trigger_metadata: { keyword_filter: ['spam.example'], regex_patterns: [], allow_list: [] },
        actions: [
          { type: 1, metadata: { custom_message: 'Not here' } },
          { type: 2, metadata: { channel_id: text.id } },
        ],
        enabled: true,
        exempt_roles: [seeded.roles.Member],
        exempt_channels: [],
      },
      REASON,
    );
    const [kept] = await client.listAutoModRules(guildId);
    const { id: _id, trigger_type: _type, ...fields } = kept;
    await client.updateAutoModRule(guildId, kept.id, { ...fields, enabled: false }, REASON);
    await rest.get(Routes.guildAutoModerationRule(guildId, rule.id));
    await client.deleteAutoModRule(guildId, rule.id, REASON);
    // The welcome screen and onboarding as a snapshot reads them and a restore writes them back
    // whole, in a Community guild (a guild that is not one has neither).
    const communitySpec = demoGuildSpec('Community Guild');
    communitySpec.features = ['ROLE_ICONS', 'COMMUNITY'];
    communitySpec.setup = {
      welcomeScreen: {
        description: 'Welcome!',
        channels: [{ channel: 'rules', description: 'Read the rules', emoji_name: '📜' }],
      },
      onboarding: {
        defaultChannels: ['general', 'rules'],
        prompts: [
          {
            title: 'What brings you here?',
            options: [
              { title: 'Games', description: 'We play', emoji_name: '🎮', roles: ['Verified'] },
              { title: 'Help', channels: ['faq'] },
            ],
          },
        ],
      },
    };
    const community = platform.seedGuild(communitySpec);
    const communityGuild = await client.getGuild(community.guildId);
    const screen = (await client.getWelcomeScreen(community.guildId, communityGuild.features))!;
    await client.modifyWelcomeScreen(
      community.guildId,
      { ...screen, welcome_channels: [...screen.welcome_channels].reverse(), enabled: false },
      REASON,
    );
    const onboarding = await client.getOnboarding(community.guildId);
    await client.modifyOnboarding(
      community.guildId,
      { ...onboarding, default_channel_ids: [community.channels.general] },
      REASON,
    );
    // Webhooks as a snapshot reads them (with their avatars) and a restore makes, sets back and deletes them.
    const hook = await client.createWebhook(text.id, { name: 'Announcements', avatar: icon }, REASON);
    const [listed] = await client.listWebhooks(guildId);
    await client.readWebhookAvatar({ id: listed.id, avatar: listed.avatar! });
    await client.updateWebhook(hook.id, { name: 'News', avatar: null, channel_id: text.id }, REASON);
    await client.deleteWebhook(hook.id, REASON);
    // A raider's other tools: a webhook, a bulk ban, a prune (last: it removes the members without roles).
    await rest.post(Routes.channelWebhooks(text.id), { body: { name: 'raid hook' } });
    await rest.post(Routes.guildBulkBan(guildId), {
      body: { user_ids: [seeded.members.carol], delete_message_seconds: 0 },
    });
    await rest.get(Routes.guildPrune(guildId), { query: new URLSearchParams({ days: '7' }) });
    await rest.post(Routes.guildPrune(guildId), { body: { days: 7, compute_prune_count: true } });

    // What the platform refuses, each in its error format: the product maps them by their codes.
    await refused(client.getGuild('1'));
    await refused(client.createRole(guildId, { name: 'x'.repeat(101) }, REASON));
    await refused(client.deleteRole(guildId, created.id, REASON));
    await refused(client.sendDirectMessage(seeded.members.erin, { content: 'DMs closed' }));
    platform.setMembersIntent(false);
    await refused(client.listMembers(guildId));
    platform.setMembersIntent(true);
  }

  async function refused(call: Promise<unknown>): Promise<void> {
    await expect(call).rejects.toBeInstanceOf(ChatPlatformError);
  }

  const succeeded = (exchange: Exchange) => exchange.status >= 200 && exchange.status <= 299;

  /** The route's answered calls; the refusals are checked on their own (the error format). */
  function exchangesOf(contract: RouteContract): Exchange[] {
    return proxy.exchanges.filter(
      (exchange) => succeeded(exchange) && contractFor(exchange.method, exchange.path) === contract,
    );
  }

  it("drives every public method of the product's platform client", () => {
    const undriven = Object.keys(CLIENT_METHODS).filter((name) => !calledMethods.has(name));
    expect(undriven).toEqual([]);
  });

  it('calls only routes the suite holds a contract for, and every one of them', () => {
    const unknown = proxy.exchanges.filter((exchange) => !contractFor(exchange.method, exchange.path));
    expect(unknown.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    const unused = ROUTE_CONTRACTS.filter((contract) => exchangesOf(contract).length === 0);
    expect(unused.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it.each(ROUTE_CONTRACTS.map((contract) => [`${contract.method} ${contract.path}`, contract] as const))(
    '%s: request and answer match the schema',
    (_name, contract) => {
      const mismatches: string[] = [];
      for (const exchange of exchangesOf(contract)) {
        const at = `${exchange.method} ${exchange.path} (${exchange.status})`;
        if (contract.request) {
          const { loose, strict } = checkAgainst(contract.request, numericBitfields(exchange.requestBody));
          mismatches.push(...[...new Set([...loose, ...strict])].map((line) => `${at} request ${line}`));
        } else if (exchange.requestBody !== undefined) {
          mismatches.push(
            `${at}: a request body Discord takes none for: ${JSON.stringify(exchange.requestBody)}`,
          );
        }
        if (contract.response) {
          const { loose, strict } = checkAgainst(contract.response, exchange.responseBody);
          mismatches.push(...loose.map((line) => `${at} answer (required fields) ${line}`));
          mismatches.push(
            ...strict.filter((line) => !loose.includes(line)).map((line) => `${at} answer ${line}`),
          );
        } else if (exchange.status !== 204 || exchange.responseBody !== undefined) {
          mismatches.push(
            `${at}: Discord answers 204 without a body, got ${JSON.stringify(exchange.responseBody)}`,
          );
        }
      }
      expect(collapse(mismatches)).toEqual([]);
    },
  );

  it('fails a field Discord does not send, however deep in the answer', async () => {
    // The proxy adds a field to the first member's user, as a fake that grew one would send it.
    proxy.rewrite = ({ path, responseBody }) => {
      if (!path.endsWith('/members')) return responseBody;
      const [first] = responseBody as { user: Record<string, unknown> }[];
      first.user.pronouns = 'they/them';
      return responseBody;
    };
    try {
      await client.listMembers(seeded.guildId);
    } finally {
      proxy.rewrite = undefined;
    }
    const answer = proxy.exchanges.at(-1)!;
    const contract = contractFor(answer.method, answer.path)!;
    expect(contract.path).toBe('/guilds/{guild_id}/members');
    expect(checkAgainst(contract.response!, answer.responseBody)).toEqual({
      loose: [],
      strict: ['0.user: fields Discord does not send: pronouns'],
    });
  }, 30_000);

  it('answers each interaction with an interaction callback as Discord takes it', () => {
    const answers = endpointProxy.exchanges.filter(succeeded);
    const mismatches = answers.flatMap((exchange) => {
      const answer = exchange.responseBody as { type?: number };
      const schema = INTERACTION_CALLBACKS.get(answer.type ?? -1);
      if (!schema) return [`callback type ${String(answer.type)}: not one the product should answer`];
      const { loose, strict } = checkAgainst(schema, answer);
      return [...new Set([...loose, ...strict])].map((line) => `type ${answer.type} ${line}`);
    });
    expect(mismatches).toEqual([]);
    // The endpoint check's PING, then the deferred ephemeral reply and the ephemeral refusal.
    expect(answers.map((exchange) => exchange.responseBody)).toEqual([
      { type: 1 },
      { type: 5, data: { flags: 64 } },
      { type: 4, data: { content: expect.any(String), flags: 64 } },
    ]);
  });

  it("delivers each command as Discord's Interaction object", () => {
    const deliveries = endpointProxy.exchanges.filter(
      (exchange) => succeeded(exchange) && (exchange.requestBody as { type: number }).type === 2,
    );
    expect(deliveries).toHaveLength(2);
    const mismatches = deliveries.flatMap((exchange) => {
      const { loose, strict } = checkAgainst(COMMAND_INTERACTION, exchange.requestBody);
      return [...new Set([...loose, ...strict])];
    });
    expect(collapse(mismatches)).toEqual([]);
  });

  it('answers every refusal in the error format, with the JSON error code the product maps', () => {
    const refusals = proxy.exchanges.filter((exchange) => exchange.status >= 400 && exchange.status !== 429);
    const mismatches = refusals.flatMap((exchange) => {
      const { loose, strict } = checkAgainst(ERROR_RESPONSE, exchange.responseBody);
      const at = `${exchange.method} ${exchange.path} (${exchange.status})`;
      return [...new Set([...loose, ...strict])].map((line) => `${at} ${line}`);
    });
    expect(collapse(mismatches)).toEqual([]);
    const codes = refusals.map((exchange) => (exchange.responseBody as { code: number }).code);
    // Unknown Guild, Invalid Form Body, Unknown Role, Cannot send messages to this user, Missing Access.
    expect([...new Set(codes)].sort()).toEqual([10004, 10011, 50001, 50007, 50035]);
  });
});
