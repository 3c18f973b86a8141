import { Logger } from '@nestjs/common';
import { Client, Events, GatewayIntentBits, Options } from 'discord.js';
import { toSourceEvent } from './gateway-dispatch.mapper';
import type { GuildEventSource, SourceEvent } from './guild-events';

export interface DiscordGatewayOptions {
  /** The platform's REST base without the version (`DISCORD_API_URL`); the gateway's address is asked there. */
  apiBaseUrl: string;
  botToken: string;
}

/**
 * The bot's gateway connection through discord.js. Live sync reads the raw dispatch packets
 * rather than discord.js's objects: their `d` is the platform's wire format, which the REST
 * client's mappers already turn into `GuildState` shapes, so nothing is lost or renamed on the
 * way. discord.js still brings the connection itself: identify, heartbeats, resume and
 * reconnect. Its caches are not used here, so they are kept to what it needs for itself.
 */
export class DiscordGatewaySource implements GuildEventSource {
  private readonly logger = new Logger(DiscordGatewaySource.name);
  private client: Client | undefined;

  constructor(private readonly options: DiscordGatewayOptions) {}

  async start(listener: (event: SourceEvent) => void): Promise<void> {
    await this.stop();
    const client = new Client({
      // Guilds: GUILD_CREATE, channels and roles; GuildModeration: bans and audit-log entries;
      // GuildMembers (privileged, enable it for the bot): kicks show as members leaving.
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildModeration, GatewayIntentBits.GuildMembers],
      rest: { api: this.options.apiBaseUrl },
      makeCache: Options.cacheWithLimits({
        ...Options.DefaultMakeCacheSettings,
        GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => member.id === member.client.user.id },
        UserManager: { maxSize: 0, keepOverLimit: (user) => user.id === user.client.user.id },
        PresenceManager: 0,
        MessageManager: 0,
        ReactionManager: 0,
        VoiceStateManager: 0,
      }),
    });
    client.on(Events.Raw, (packet: unknown) => this.dispatch(packet, listener));
    // An emitter's unhandled `error` would end the process; the connection recovers by itself.
    client.on(Events.Error, (error) => this.logger.error({ err: String(error) }, 'gateway client error'));
    client.on(Events.ShardError, (error, shardId) =>
      this.logger.warn({ err: String(error), shard_id: shardId }, 'gateway connection error'),
    );
    client.on(Events.ShardDisconnect, (event, shardId) =>
      this.logger.error({ code: event.code, shard_id: shardId }, 'gateway closed for good'),
    );
    client.on(Events.ShardReconnecting, (shardId) =>
      this.logger.warn({ shard_id: shardId }, 'gateway reconnecting'),
    );
    this.client = client;
    try {
      await client.login(this.options.botToken);
    } catch (error) {
      this.client = undefined;
      await client.destroy();
      throw error;
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // Closing is not losing the connection: no "reconnecting" warning for it.
    client?.removeAllListeners(Events.ShardReconnecting);
    await client?.destroy();
  }

  /** Called inside discord.js's packet handling: nothing may escape from here. */
  private dispatch(packet: unknown, listener: (event: SourceEvent) => void): void {
    try {
      const event = toSourceEvent(packet);
      if (event) listener(event);
    } catch (error) {
      const type = (packet as { t?: unknown } | null)?.t;
      this.logger.error(
        { err: String(error), dispatch: type },
        'gateway event dropped: it could not be read',
      );
    }
  }
}
