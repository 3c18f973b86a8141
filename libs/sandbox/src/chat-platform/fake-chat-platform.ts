import {
  AuditLogEvent,
  GatewayDispatchEvents,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { createServer } from 'node:http';
import { LoopbackServer } from '../loopback-server';
import type { FakeAuditLogEntry } from './audit-log';
import { BotAccounts } from './bot-accounts';
import { BotAuthority } from './bot-authority';
import { BoundedLog } from './bounded-log';
import { CDN_PATH } from './cdn';
import type { ExpressionImage } from './expression-images';
import { FailureInjector, type FailureRule } from './failure-injector';
import type {
  IdentifyAttempt,
  IdentifyRefusal,
  ShardingSettings,
  ShardOverlap,
} from './gateway/gateway-limits';
import { GATEWAY_PATH, type GatewayConnectionInfo, GatewayServer } from './gateway/gateway-server';
import { type ChangeCause, recordChanges } from './guild-activity';
import type { GuildChange } from './guild-change';
import { type GuildSpec, type SeededGuild, seedEmoji, seedGuild, seedSticker } from './guild-seed';
import {
  type InteractionsEndpoint,
  type SlashCommand,
  commandInteraction,
  postSigned,
  verifyEndpoint,
} from './interaction-delivery';
import { INTERACTION_RESPONSE_DEADLINE_MS, type InteractionRecord } from './interactions';
import type { OAuthApp } from './oauth-store';
import type { DmRecord, FakeGuild, FakeUser, RequestRecord } from './platform-state';
import { PlatformStore } from './platform-store';
import { DEFAULT_RATE_LIMITS, PlatformRateLimits, type RateLimitSettings } from './rate-limiter';
import { handlePlatformRequest } from './request-handler';
import { Router } from './router';
import { guildWire, memberWire } from './wire-format';
import { platformRoutes } from './routes';

/** How a test adds an emoji or sticker: who uploaded it, and its image. */
export interface ExpressionSeed {
  /** The uploader; default the guild's owner. */
  by?: string;
  image?: ExpressionImage;
}

/** The guilds and users of a fake platform, as JSON, for the sandbox to keep across restarts. */
export interface FakePlatformState {
  botUserId: string;
  users: FakeUser[];
  guilds: FakeGuild[];
}

export interface FakeChatPlatformOptions {
  /** Expected as `Authorization: Bot <token>`; default `fake-bot-token`. */
  botToken?: string;
  /** Default: a fresh snowflake. */
  botUserId?: string;
  botUsername?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Merged over the defaults (10 per second per bucket, 50 per second globally). */
  rateLimits?: Partial<RateLimitSettings>;
  /** How many requests, DMs and audit-log entries per guild the logs keep; default 10,000 each. */
  logCapacity?: number;
  /** The gateway's HELLO `heartbeat_interval`; default 41,250 ms as on the platform. Tests want it short. */
  gatewayHeartbeatIntervalMs?: number;
  /**
   * How soon an interaction's initial response must arrive; default and at most the platform's
   * 3,000 ms (a test may be stricter, never laxer).
   */
  interactionDeadlineMs?: number;
  /**
   * The platform sends op 7 RECONNECT now and then; here each gateway connection gets one this long
   * after its IDENTIFY or RESUME. Unset, none are sent but those `requestGatewayReconnect` asks for.
   */
  gatewayReconnectEveryMs?: number;
}

/** How long the fake waits for an interactions endpoint's answer before it stops listening. */
const INTERACTION_ANSWER_CAP_MS = 30_000;

/**
 * A loopback server speaking the chat platform's REST API v10 subset under `/api/v10`, with
 * in-memory guilds, permission checks, rate-limit buckets and 429s, so the real `@discordjs/rest`
 * client can drive it; its OAuth2 authorization-code grant (the consent page at
 * `/oauth2/authorize`, `POST /api/v10/oauth2/token`, `GET /api/v10/users/@me` with the user's
 * token), so "Login with ..." can run against it; and its gateway (WebSocket at `/gateway`, found
 * through `GET /api/v10/gateway/bot`), so a `discord.js` Client can log in and hear the guild
 * events and audit-log entries that requests to the REST API cause; and what its CDN serves (the
 * images of custom emojis and stickers, guilds' icons, banners and splashes, and role icons, under
 * `/cdn`: see `cdnUrl`). Everything else is an in-process control API for tests and the sandbox.
 */
export class FakeChatPlatform {
  readonly botToken: string;
  private readonly loopback: LoopbackServer;
  private readonly store: PlatformStore;
  private readonly bots: BotAccounts;
  private readonly gateway: GatewayServer;
  private readonly router = new Router(platformRoutes);
  private readonly failures = new FailureInjector();
  private readonly requests: BoundedLog<RequestRecord>;
  private readonly initialRateLimits: RateLimitSettings;
  private readonly rateLimits: PlatformRateLimits;
  private readonly interactionDeadlineMs: number;
  private interactionsEndpoint?: InteractionsEndpoint;

  constructor(options: FakeChatPlatformOptions = {}) {
    this.botToken = options.botToken ?? 'fake-bot-token';
    this.loopback = new LoopbackServer('fake chat platform', options.host ?? '127.0.0.1', options.port ?? 0);
    const logCapacity = options.logCapacity ?? 10_000;
    this.store = new PlatformStore(
      { id: options.botUserId, username: options.botUsername ?? 'GuildKeeper' },
      logCapacity,
    );
    this.bots = new BotAccounts(this.botToken, this.store.bot.id);
    this.gateway = new GatewayServer(
      this.store,
      this.bots,
      options.gatewayHeartbeatIntervalMs ?? 41_250,
      options.gatewayReconnectEveryMs,
    );
    this.requests = new BoundedLog(logCapacity);
    this.initialRateLimits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
    this.rateLimits = new PlatformRateLimits(this.initialRateLimits);
    this.interactionDeadlineMs = options.interactionDeadlineMs ?? INTERACTION_RESPONSE_DEADLINE_MS;
    this.store.interactions.setDeadline(this.interactionDeadlineMs);
  }

  get botUserId(): string {
    return this.store.bot.id;
  }

  /** The base address without `/api`, e.g. `http://127.0.0.1:1234`. */
  get url(): string {
    return this.loopback.url;
  }

  /**
   * Where the fake's CDN answers, standing for `https://cdn.discordapp.com` (a host of its own on
   * the platform): `${cdnUrl}/emojis/{id}.png`, `${cdnUrl}/stickers/{id}.png`,
   * `${cdnUrl}/icons/{guild_id}/{hash}.png` (and `banners/`, `splashes/`, `discovery-splashes/`,
   * `role-icons/{role_id}/`), with the images as uploaded (see `cdn.ts`).
   */
  get cdnUrl(): string {
    return `${this.loopback.url}${CDN_PATH}`;
  }

  async start(): Promise<{ url: string }> {
    const url = await this.loopback.start((stopping) => {
      const context = {
        bots: this.bots,
        store: this.store,
        router: this.router,
        rateLimits: this.rateLimits,
        failures: this.failures,
        requests: this.requests,
        stopping,
        publish: (changes: GuildChange[], cause: ChangeCause) =>
          this.gateway.dispatch(recordChanges(this.store, changes, cause)),
      };
      const server = createServer((req, res) => void handlePlatformRequest(req, res, context));
      server.on('upgrade', (req, socket, head: Buffer) => this.gateway.upgrade(req, socket, head));
      return server;
    });
    this.store.gatewayUrl = `${url.replace(/^http/, 'ws')}${GATEWAY_PATH}`;
    return { url };
  }

  /**
   * Closes the gateway's connections (normally: a client would re-identify), then the server and
   * its keep-alive connections; answers held by a delay are dropped.
   */
  async stop(): Promise<void> {
    await this.loopback.stop(() => {
      this.store.gatewayUrl = undefined;
      return this.gateway.closeAll();
    });
  }

  /** The guilds and users (not logs, bans, tokens or OAuth grants), to restore with `importState`. */
  exportState(): FakePlatformState {
    return structuredClone({
      botUserId: this.store.bot.id,
      users: [...this.store.users.values()].filter((user) => user.id !== this.store.bot.id),
      guilds: [...this.store.guilds.values()],
    });
  }

  /** Puts back what `exportState` took; the bot must have the same id (pass `botUserId`). */
  importState(state: FakePlatformState): void {
    if (state.botUserId !== this.store.bot.id) {
      throw new Error('the saved state belongs to a platform with another bot user id');
    }
    for (const user of state.users) this.store.users.set(user.id, structuredClone(user));
    for (const guild of state.guilds) {
      // A state saved before the fake kept guild images has none; their bytes are never saved.
      const images = { banner: null, splash: null, discovery_splash: null };
      this.store.guilds.set(guild.id, structuredClone({ ...images, ...guild }));
      this.gateway.guildAvailable(this.liveGuild(guild.id));
    }
  }

  /** Seeds a guild; the gateway sessions of its members (the bot's, usually) get its GUILD_CREATE. */
  seedGuild(spec: GuildSpec): SeededGuild {
    const seeded = seedGuild(this.store, spec);
    this.gateway.guildAvailable(this.liveGuild(seeded.guildId));
    return seeded;
  }

  /** A deep copy of the guild's current state. */
  guild(id: string): FakeGuild {
    return structuredClone(this.liveGuild(id));
  }

  /**
   * Changes state directly, past every check (e.g. a raid deleting channels and roles): no audit-log
   * entries and no gateway events, unlike the same change through the REST API.
   */
  mutate(id: string, change: (guild: FakeGuild) => void): void {
    change(this.liveGuild(id));
  }

  /** Removes the guild with its bans and audit log; its members' gateway sessions get GUILD_DELETE. */
  deleteGuild(id: string): void {
    this.liveGuild(id);
    this.gateway.dispatch([
      {
        event: GatewayDispatchEvents.GuildDelete,
        data: { id },
        guildId: id,
        intent: GatewayIntentBits.Guilds,
      },
    ]);
    this.store.deleteGuild(id);
  }

  /**
   * Another bot's token (a raider's, say): REST requests and gateway sessions with it act as that
   * user (created as `addUser` would if unknown), with that user's permissions and place in the role
   * hierarchy of each guild, and its requests are that user's in the audit log. Its requests have
   * no rate limits. `reset()` forgets it.
   */
  registerBotToken(token: string, userId: string, username?: string): void {
    this.addUser(userId, username);
    this.bots.register(token, userId);
  }

  /**
   * A user authorizes a bot into the guild (the OAuth2 bot flow, which the fake has no page for):
   * the bot becomes a member with no role, and the guild's audit log gets BOT_ADD in `by`'s name,
   * who must be able to manage the guild. The bot's user is created as `addUser` would, marked a bot.
   */
  addBot(guildId: string, botUserId: string, by: string, username?: string): void {
    const guild = this.liveGuild(guildId);
    if (!new BotAuthority(guild, by).holds(PermissionFlagsBits.ManageGuild)) {
      throw new Error(`${by} may not add a bot to guild ${guildId} (Manage Server)`);
    }
    const user = this.store.ensureUser(botUserId, username ?? `bot-${botUserId.slice(-4)}`);
    user.bot = true;
    if (guild.members.some((member) => member.user_id === botUserId)) return;
    const member = { user_id: botUserId, roles: [], nick: null, joined_at: new Date().toISOString() };
    guild.members.push(member);
    this.publish(
      [
        {
          kind: 'entry',
          guildId,
          entry: { target_id: botUserId, action_type: AuditLogEvent.BotAdd },
          dispatch: {
            event: GatewayDispatchEvents.GuildMemberAdd,
            data: { guild_id: guildId, ...memberWire(member, user) },
            intent: GatewayIntentBits.GuildMembers,
          },
        },
      ],
      by,
    );
  }

  /**
   * A user with Manage Server changes the guild's vanity URL code (a client-only setting, no bot
   * route): GUILD_UPDATE in the audit log with the `vanity_url_code` change, and on the gateway.
   */
  changeVanityUrl(guildId: string, code: string | null, by: string): void {
    const guild = this.liveGuild(guildId);
    if (!new BotAuthority(guild, by).holds(PermissionFlagsBits.ManageGuild)) {
      throw new Error(`${by} may not change the vanity URL of guild ${guildId} (Manage Server)`);
    }
    const before = this.store.expressions.vanityCode(guildId);
    if (before === code) return;
    this.store.expressions.setVanityCode(guildId, code);
    this.publish(
      [
        {
          kind: 'entry',
          guildId,
          entry: {
            target_id: guildId,
            action_type: AuditLogEvent.GuildUpdate,
            changes: [
              {
                key: 'vanity_url_code',
                ...(before ? { old_value: before } : {}),
                ...(code ? { new_value: code } : {}),
              },
            ],
          },
          dispatch: {
            event: GatewayDispatchEvents.GuildUpdate,
            data: { ...guildWire(guild, this.store.expressions.of(guildId)), vanity_url_code: code },
            intent: GatewayIntentBits.Guilds,
          },
        },
      ],
      by,
    );
  }

  /**
   * Gives the guild a custom emoji, as an upload by `options.by` (default: the guild's owner) would,
   * without its audit-log entry or gateway event; returns its id. Its image is `options.image`
   * (served by the CDN as it is), by default a 1x1 PNG, or a two-frame GIF when `animated`.
   */
  addEmoji(guildId: string, name: string, options: ExpressionSeed & { animated?: boolean } = {}): string {
    const guild = this.liveGuild(guildId);
    return seedEmoji(this.store, guildId, options.by ?? guild.owner_id, { name, ...options });
  }

  /**
   * Gives the guild a PNG sticker, as an upload by `options.by` (default: the guild's owner) would,
   * without its audit-log entry or gateway event; returns its id. Its file is `options.image`, by
   * default a 1x1 PNG.
   */
  addSticker(guildId: string, name: string, options: ExpressionSeed = {}): string {
    const guild = this.liveGuild(guildId);
    return seedSticker(this.store, guildId, options.by ?? guild.owner_id, { name, image: options.image });
  }

  /** Records changes made outside a request, as a request by `actorId` would: audit log and gateway. */
  private publish(changes: GuildChange[], actorId: string): void {
    this.gateway.dispatch(recordChanges(this.store, changes, { actorId, reason: null }));
  }

  /** The guild's audit log, oldest first: an entry for each change a REST request made. */
  auditLog(guildId: string): FakeAuditLogEntry[] {
    return structuredClone(this.store.auditLogs.entries(guildId));
  }

  /** The gateway's open connections, and the session each carries once identified. */
  gatewayConnections(): GatewayConnectionInfo[] {
    return this.gateway.connectionInfo();
  }

  /**
   * Closes every gateway connection as a lost connection would (code 4000), so a client resumes:
   * its session is replayed what it missed. With `resumable: false` the sessions end too, so a
   * client's RESUME gets INVALID_SESSION and it identifies afresh (READY and GUILD_CREATEs again).
   * Resolves once the sockets are closed.
   */
  async disconnectGateway(options: { resumable?: boolean } = {}): Promise<void> {
    await this.gateway.disconnect(options.resumable ?? true);
  }

  /**
   * The platform's sharding figures, merged over the defaults (1 recommended shard, max
   * concurrency 1, an IDENTIFY per bucket every 5,000 ms, 1,000 session starts a day, 2,500 guilds
   * per shard): what `GET /gateway/bot` recommends and what IDENTIFY enforces. `reset()` restores
   * the defaults.
   */
  setSharding(options: Partial<ShardingSettings>): void {
    this.store.gatewayLimits.configure(options);
  }

  /**
   * The IDENTIFYs the gateway refused rather than take, oldest first: out of session starts (then
   * closed with 4004 and the bot's token reset), or answered INVALID_SESSION as too soon for the
   * shard's bucket or for a shard count other than a live session's. Several sessions of one shard
   * are allowed, as on the platform.
   */
  identifyRefusals(): IdentifyRefusal[] {
    return this.store.gatewayLimits.refusals().map((refusal) => ({ ...refusal, shard: [...refusal.shard] }));
  }

  /**
   * Each time a bot's session started or resumed while another of its sessions followed the same
   * shard, oldest first. The platform allows that (each session hears the shard's events), so a
   * client that wants a shard followed once has to see to it itself; this is how a test proves it did.
   */
  gatewayShardOverlaps(): ShardOverlap[] {
    return this.store.gatewayLimits
      .overlaps()
      .map((overlap) => ({ ...overlap, shard: [...overlap.shard], sessionIds: [...overlap.sessionIds] }));
  }

  /** Every IDENTIFY the gateway received, oldest first, with what it answered. */
  gatewayIdentifies(): IdentifyAttempt[] {
    return this.store.gatewayLimits
      .identifies()
      .map((attempt) => ({ ...attempt, ...(attempt.shard ? { shard: [...attempt.shard] } : {}) }));
  }

  /**
   * Whether the platform has reset the bot's token (the fake's own bot by default), as it does when
   * an IDENTIFY finds its session starts used up. `reset()` gives it back.
   */
  botTokenWasReset(botUserId = this.botUserId): boolean {
    return this.bots.wasReset(botUserId);
  }

  /** op 7 RECONNECT now on every identified gateway connection: clients close and RESUME. */
  requestGatewayReconnect(): void {
    this.gateway.requestReconnect();
  }

  /**
   * The open gateway connections turn zombie: they stop acknowledging heartbeats and pass no
   * dispatches on (their sessions keep them for a RESUME), until the client notices and reconnects.
   * Connections opened afterwards are healthy.
   */
  stopAckingHeartbeats(): void {
    this.gateway.zombify();
  }

  /** Answers matching requests with this failure before any other processing. */
  injectFailure(rule: FailureRule): void {
    this.failures.add(rule);
  }
  /** Drops the injected failures not yet used up. */
  clearFailures(): void {
    this.failures.clear();
  }

  /** A platform user who is in no seeded guild (someone a DM can reach); kept if already there. */
  addUser(id: string, username = `user-${id.slice(-4)}`): void {
    this.store.ensureUser(id, username);
  }

  /** An OAuth2 application the consent page and the token endpoint know; replaces one with its id. */
  registerOAuthApp(app: OAuthApp): void {
    this.store.oauth.registerApp(app);
  }

  /**
   * Signs the "browser" in to the platform as this user (created as `addUser` would), who then
   * agrees on every consent page: `/oauth2/authorize` redirects with a code for them at once.
   */
  loginAs(userId: string, username?: string): void {
    this.addUser(userId, username);
    this.store.oauth.signedInUserId = userId;
  }

  /** The users' access tokens the token endpoint has issued (still valid), oldest first. */
  issuedAccessTokens(): string[] {
    return this.store.oauth.issuedAccessTokens(Date.now());
  }

  /** Nobody signed in: the consent page redirects with `error=access_denied`. */
  logout(): void {
    this.store.oauth.signedInUserId = undefined;
  }

  /** The signed-in user refuses the next consent they are asked for (`error=access_denied`). */
  denyNextAuthorization(): void {
    this.store.oauth.denyNextConsent();
  }

  /**
   * Turns the privileged GUILD_MEMBERS intent of a bot's application (the fake's own bot's by
   * default) on or off, as its developer portal would: while off, listing a guild's members
   * answers 403 Missing Access (50001) and a gateway IDENTIFY asking for the intent is closed with
   * 4014 (Disallowed intents). On for every bot until turned off; `reset()` turns it on.
   */
  setMembersIntent(enabled: boolean, botUserId = this.botUserId): void {
    if (enabled) this.store.withoutMembersIntent.delete(botUserId);
    else this.store.withoutMembersIntent.add(botUserId);
  }

  /** A user with DMs closed makes a DM to them fail with 50007. */
  setDmsClosed(userId: string, closed: boolean): void {
    if (closed) this.store.dmsClosed.add(userId);
    else this.store.dmsClosed.delete(userId);
  }

  /** Opens (or finds) the DM channel with the user, as the bot's first DM would; returns its id. */
  openDm(userId: string): string {
    return this.store.openDm(this.store.user(userId).id);
  }

  /** The id of the DM channel the bot opened with the user, if it did. */
  dmChannelOf(userId: string): string | undefined {
    return this.store.dmChannelWith(userId);
  }

  dmLog(): DmRecord[] {
    return this.store.dmLog.entries().map((record) => ({
      ...record,
      embeds: structuredClone(record.embeds),
      sentAt: new Date(record.sentAt),
    }));
  }

  requestLog(): RequestRecord[] {
    return this.requests.entries().map((record) => ({ ...record }));
  }

  /**
   * Saves the application's Interactions Endpoint URL as its developer portal does: the endpoint
   * must answer a signed PING with a PONG and refuse an invalid signature with 401, or this
   * throws. The application id defaults to the fake bot's user id, as a bot's application has.
   */
  async setInteractionsEndpoint(
    endpoint: Omit<InteractionsEndpoint, 'applicationId'> & { applicationId?: string },
  ): Promise<void> {
    const saved = { ...endpoint, applicationId: endpoint.applicationId ?? this.botUserId };
    await verifyEndpoint(saved);
    this.interactionsEndpoint = saved;
  }

  /**
   * A member invokes a slash command: the platform POSTs the signed interaction to the endpoint
   * and waits for the initial response. Resolves with what happened once the answer came (or
   * after 30 s without one): the response, how long it took, whether it met the deadline. Edits
   * of the original response come later: see `interactionEdited`.
   */
  async sendCommand(command: SlashCommand): Promise<InteractionRecord> {
    const endpoint = this.interactionsEndpoint;
    if (!endpoint) throw new Error('no interactions endpoint is set (setInteractionsEndpoint)');
    const guild = this.liveGuild(command.guildId);
    const member = guild.members.find((candidate) => candidate.user_id === command.userId);
    if (!member) throw new Error(`${command.userId} is not a member of guild ${guild.id}`);
    const channel =
      command.channelId === undefined
        ? guild.channels.find((candidate) => candidate.type === 0)
        : guild.channels.find((candidate) => candidate.id === command.channelId);
    if (!channel) throw new Error(`guild ${guild.id} has no such text channel`);
    const subcommand = (command.options?.[0] as { type?: number; name?: string } | undefined) ?? {};
    const id = this.store.ids.next();
    const record = this.store.interactions.open(
      {
        id,
        applicationId: endpoint.applicationId,
        guildId: guild.id,
        channelId: channel.id,
        userId: member.user_id,
        commandName: subcommand.type === 1 ? `${command.name} ${subcommand.name}` : command.name,
      },
      Date.now(),
    );
    const payload = commandInteraction(
      { id, token: record.token, applicationId: endpoint.applicationId, commandId: this.store.ids.next() },
      guild,
      channel,
      member,
      this.store.user(member.user_id),
      command,
    );
    try {
      const answer = await postSigned(endpoint, payload, {
        signal: AbortSignal.timeout(INTERACTION_ANSWER_CAP_MS),
      });
      this.store.interactions.respond(id, answer, Date.now());
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.store.interactions.unanswered(id, `the endpoint did not answer: ${reason}`, Date.now());
    }
    return this.store.interactions.get(id)!;
  }

  /** The interaction as it stands (its initial response and the edits so far). */
  interaction(id: string): InteractionRecord | undefined {
    return this.store.interactions.get(id);
  }

  /** Resolves once the interaction's original response has been edited `count` times (default 1). */
  interactionEdited(id: string, { count = 1, timeoutMs = 30_000 } = {}): Promise<InteractionRecord> {
    return this.store.interactions.edited(id, count, timeoutMs);
  }

  /** Replaces the given limits (the others stay); every bucket starts afresh. */
  setRateLimits(settings: Partial<RateLimitSettings>): void {
    this.rateLimits.configure({ ...this.rateLimits.settings, ...settings });
  }

  /**
   * Back to a fresh platform: no guilds, users, DMs, logs, bans or failures, no OAuth2
   * applications, codes or tokens, no registered bot tokens and nobody signed in, no interactions
   * (the interactions endpoint stays); the configured
   * limits, the default sharding figures with no session starts or refusals, and every bot's
   * GUILD_MEMBERS intent on. Gateway sessions end and their connections are closed normally (a
   * client re-identifies).
   */
  reset(): void {
    void this.gateway.closeAll();
    this.bots.clear();
    this.store.clear();
    this.failures.clear();
    this.requests.clear();
    this.rateLimits.configure(this.initialRateLimits);
    this.store.interactions.setDeadline(this.interactionDeadlineMs);
  }

  private liveGuild(id: string): FakeGuild {
    const guild = this.store.guilds.get(id);
    if (!guild) throw new Error(`the fake chat platform has no guild ${id}`);
    return guild;
  }
}
