import { DiscordAPIError, REST } from '@discordjs/rest';
import {
  type APIChannel,
  type APIGuild,
  type APIGuildMember,
  type APIMessage,
  type APIRole,
  type APIUser,
  Routes,
} from 'discord-api-types/v10';
import type {
  DirectMessage,
  GuildSettings,
  GuildState,
  PermissionOverride,
  PlatformChannelWithOverrides,
  PlatformMember,
  PlatformMessage,
  PlatformRole,
  PlatformUser,
} from './guild-state';
import {
  type WireGuildChannel,
  sortByPosition,
  toChannelBody,
  toChannelWithOverrides,
  toGuildSettings,
  toGuildState,
  toPlatformMember,
  toPlatformMessage,
  toPlatformRole,
  toPlatformUser,
  toWireOverwrite,
} from './guild-state.mapper';
import { toChatPlatformFailure } from './platform-failure.mapper';
import type {
  ChannelInput,
  ChannelPosition,
  ChannelUpdate,
  GuildSettingsUpdate,
  RoleInput,
  RolePosition,
  WriteOptions,
} from './write-inputs';

export interface ChatPlatformClientOptions {
  /** Base address without the version, e.g. `https://discord.com/api` or a fake's url + `/api`. */
  apiBaseUrl: string;
  botToken: string;
  /** Per attempt; the client retries a timed-out attempt like a 5xx answer. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * The chat platform's REST API as the service uses it, over `@discordjs/rest`: the client queues
 * requests per rate-limit bucket from the platform's headers, waits out 429s and retries 5xx
 * answers and timeouts; whatever still fails is thrown as a ChatPlatformError.
 */
export class ChatPlatformClient {
  private readonly rest: REST;

  constructor(private readonly options: ChatPlatformClientOptions) {
    this.rest = new REST({
      version: '10',
      api: options.apiBaseUrl,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    }).setToken(options.botToken);
  }

  async getCurrentUser(): Promise<PlatformUser> {
    return toPlatformUser(await this.call<APIUser>(() => this.rest.get(Routes.user('@me'))));
  }

  async getGuild(guildId: string): Promise<GuildSettings> {
    return toGuildSettings(await this.call<APIGuild>(() => this.rest.get(Routes.guild(guildId))));
  }

  /** Settings, roles (from the guild object) and channels with their overrides flattened out. */
  async getGuildState(guildId: string): Promise<GuildState> {
    const [guild, channels] = await Promise.all([
      this.call<APIGuild>(() => this.rest.get(Routes.guild(guildId))),
      this.call<WireGuildChannel[]>(() => this.rest.get(Routes.guildChannels(guildId))),
    ]);
    return toGuildState(guild, channels);
  }

  /** Every role of the guild, @everyone included (its id is the guild's), sorted by position. */
  async getRoles(guildId: string): Promise<PlatformRole[]> {
    const roles = await this.call<APIRole[]>(() => this.rest.get(Routes.guildRoles(guildId)));
    return sortByPosition(roles.map(toPlatformRole));
  }

  async getMember(guildId: string, userId: string): Promise<PlatformMember> {
    return toPlatformMember(
      await this.call<APIGuildMember>(() => this.rest.get(Routes.guildMember(guildId, userId))),
    );
  }

  async createRole(guildId: string, input: RoleInput, options: WriteOptions = {}): Promise<PlatformRole> {
    const role = await this.call<APIRole>(() =>
      this.rest.post(Routes.guildRoles(guildId), { body: input, reason: options.reason }),
    );
    return toPlatformRole(role);
  }

  async updateRole(
    guildId: string,
    roleId: string,
    input: RoleInput,
    options: WriteOptions = {},
  ): Promise<PlatformRole> {
    const role = await this.call<APIRole>(() =>
      this.rest.patch(Routes.guildRole(guildId, roleId), { body: input, reason: options.reason }),
    );
    return toPlatformRole(role);
  }

  async deleteRole(guildId: string, roleId: string, options: WriteOptions = {}): Promise<void> {
    await this.call(() => this.rest.delete(Routes.guildRole(guildId, roleId), { reason: options.reason }));
  }

  /** Returns every role of the guild with its position after the move. */
  async setRolePositions(
    guildId: string,
    positions: RolePosition[],
    options: WriteOptions = {},
  ): Promise<PlatformRole[]> {
    const roles = await this.call<APIRole[]>(() =>
      this.rest.patch(Routes.guildRoles(guildId), { body: positions, reason: options.reason }),
    );
    return sortByPosition(roles.map(toPlatformRole));
  }

  async createChannel(
    guildId: string,
    input: ChannelInput,
    options: WriteOptions = {},
  ): Promise<PlatformChannelWithOverrides> {
    const channel = await this.call<WireGuildChannel>(() =>
      this.rest.post(Routes.guildChannels(guildId), { body: toChannelBody(input), reason: options.reason }),
    );
    return toChannelWithOverrides(channel);
  }

  async updateChannel(
    channelId: string,
    input: ChannelUpdate,
    options: WriteOptions = {},
  ): Promise<PlatformChannelWithOverrides> {
    const channel = await this.call<WireGuildChannel>(() =>
      this.rest.patch(Routes.channel(channelId), { body: toChannelBody(input), reason: options.reason }),
    );
    return toChannelWithOverrides(channel);
  }

  async deleteChannel(channelId: string, options: WriteOptions = {}): Promise<void> {
    await this.call<APIChannel>(() =>
      this.rest.delete(Routes.channel(channelId), { reason: options.reason }),
    );
  }

  async setChannelPositions(
    guildId: string,
    positions: ChannelPosition[],
    options: WriteOptions = {},
  ): Promise<void> {
    await this.call(() =>
      this.rest.patch(Routes.guildChannels(guildId), { body: positions, reason: options.reason }),
    );
  }

  /** Creates or replaces the override; the platform answers without a body, so this echoes it. */
  async putPermissionOverride(
    override: PermissionOverride,
    options: WriteOptions = {},
  ): Promise<PermissionOverride> {
    const { id, ...body } = toWireOverwrite(override);
    await this.call(() =>
      this.rest.put(Routes.channelPermission(override.channel_id, id), { body, reason: options.reason }),
    );
    return { ...override };
  }

  async deletePermissionOverride(
    channelId: string,
    overrideId: string,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.call(() =>
      this.rest.delete(Routes.channelPermission(channelId, overrideId), { reason: options.reason }),
    );
  }

  async updateGuildSettings(
    guildId: string,
    settings: GuildSettingsUpdate,
    options: WriteOptions = {},
  ): Promise<GuildSettings> {
    const guild = await this.call<APIGuild>(() =>
      this.rest.patch(Routes.guild(guildId), { body: settings, reason: options.reason }),
    );
    return toGuildSettings(guild);
  }

  async addMemberRole(
    guildId: string,
    userId: string,
    roleId: string,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.call(() =>
      this.rest.put(Routes.guildMemberRole(guildId, userId, roleId), { reason: options.reason }),
    );
  }

  async removeMemberRole(
    guildId: string,
    userId: string,
    roleId: string,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.call(() =>
      this.rest.delete(Routes.guildMemberRole(guildId, userId, roleId), { reason: options.reason }),
    );
  }

  /** Replaces the member's roles (without @everyone) in one call. */
  async setMemberRoles(
    guildId: string,
    userId: string,
    roleIds: string[],
    options: WriteOptions = {},
  ): Promise<PlatformMember> {
    const member = await this.call<APIGuildMember>(() =>
      this.rest.patch(Routes.guildMember(guildId, userId), {
        body: { roles: roleIds },
        reason: options.reason,
      }),
    );
    return toPlatformMember(member);
  }

  /**
   * Opens (or reuses) the DM channel with the user, then posts the message there. With a nonce the
   * platform enforces it, so a retry after a lost answer (the REST client's or the caller's) gets
   * the message already posted rather than a second one.
   */
  async sendDirectMessage(userId: string, message: DirectMessage): Promise<PlatformMessage> {
    const channel = await this.call<APIChannel>(() =>
      this.rest.post(Routes.userChannels(), { body: { recipient_id: userId } }),
    );
    const { nonce, ...body } = message;
    const sent = await this.call<APIMessage>(() =>
      this.rest.post(Routes.channelMessages(channel.id), {
        body: nonce === undefined ? body : { ...body, nonce, enforce_nonce: true },
      }),
    );
    return toPlatformMessage(sent);
  }

  /** Runs one REST call; the response body is the platform's JSON, typed by the caller. */
  private async call<T = unknown>(request: () => Promise<unknown>): Promise<T> {
    try {
      return (await request()) as T;
    } catch (error) {
      // On a 401 the REST client forgets its token, and every later call would fail locally with
      // a confusing error; keep the configured token so they report the platform's answer.
      if (error instanceof DiscordAPIError && error.status === 401) this.rest.setToken(this.options.botToken);
      throw toChatPlatformFailure(error);
    }
  }
}
