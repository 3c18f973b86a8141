import { PermissionFlagsBits } from 'discord-api-types/v10';
import { type KeyObject, sign } from 'node:crypto';
import { guildPermissions } from './bot-authority';
import type { FakeChannel, FakeGuild, FakeMember, FakeUser } from './platform-state';
import { memberWire } from './wire-format';

/** An application's Interactions Endpoint URL, and the private half of the key it verifies with. */
export interface InteractionsEndpoint {
  /** The application's id; on the platform a bot's application has its bot user's id. */
  applicationId: string;
  /** Where interactions are POSTed, e.g. `http://127.0.0.1:1234/interactions`. */
  url: string;
  /** The application's Ed25519 private key; the endpoint holds the public half. */
  signingKey: KeyObject;
}

/** A slash command as a member invokes it in a guild channel. */
export interface SlashCommand {
  guildId: string;
  userId: string;
  /** Default: the guild's first text channel. */
  channelId?: string;
  /** The command's name, e.g. `snapshot`. */
  name: string;
  /** The command's options as the platform sends them (a subcommand with its own options). */
  options?: unknown[];
  /** The member's client language; default `en-US`. */
  locale?: string;
}

/** What the endpoint answered: its status and its JSON body (undefined when not JSON). */
export interface EndpointAnswer {
  status: number;
  body: unknown;
}

/**
 * POSTs `payload` to the endpoint signed as the platform signs it (interactions/overview,
 * "Setting Up an Endpoint"): `X-Signature-Ed25519` is the hex signature of
 * `X-Signature-Timestamp` (unix seconds) followed by the raw body.
 */
export async function postSigned(
  endpoint: InteractionsEndpoint,
  payload: unknown,
  options: { forgeSignature?: boolean; signal?: AbortSignal } = {},
): Promise<EndpointAnswer> {
  const raw = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signed = sign(null, Buffer.from(timestamp + raw), endpoint.signingKey);
  // A forged signature is a valid one of another message: well-formed, and wrong.
  if (options.forgeSignature) signed[0] ^= 0xff;
  const response = await fetch(endpoint.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)',
      'x-signature-ed25519': signed.toString('hex'),
      'x-signature-timestamp': timestamp,
    },
    body: raw,
    signal: options.signal,
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/**
 * What the platform checks when an Interactions Endpoint URL is saved (interactions/overview,
 * "Setting Up an Endpoint"): a signed PING must get a PONG, and a request with an invalid
 * signature must be refused with 401. Throws, saying which failed.
 */
export async function verifyEndpoint(endpoint: InteractionsEndpoint): Promise<void> {
  const ping = { id: '0', application_id: endpoint.applicationId, type: 1, token: 'ping', version: 1 };
  const pong = await postSigned(endpoint, ping);
  const type = (pong.body as { type?: unknown } | undefined)?.type;
  if (pong.status !== 200 || type !== 1) {
    throw new Error(
      `the interactions endpoint answered a PING with ${pong.status} ${JSON.stringify(pong.body)}`,
    );
  }
  const forged = await postSigned(endpoint, ping, { forgeSignature: true });
  if (forged.status !== 401) {
    throw new Error(`the interactions endpoint answered an invalid signature with ${forged.status}, not 401`);
  }
}

/**
 * The Interaction object of a slash command (interactions/receiving-and-responding, "Interaction
 * Object"): the member with their permissions in the channel, the app's permissions there, the
 * command's data as the platform resolves it.
 */
export function commandInteraction(
  ids: { id: string; token: string; applicationId: string; commandId: string },
  guild: FakeGuild,
  channel: FakeChannel,
  member: FakeMember,
  user: FakeUser,
  command: SlashCommand,
) {
  return {
    id: ids.id,
    application_id: ids.applicationId,
    type: 2, // APPLICATION_COMMAND
    token: ids.token,
    version: 1,
    data: { id: ids.commandId, name: command.name, type: 1, options: command.options ?? [] },
    guild: { id: guild.id, locale: guild.preferred_locale, features: [] },
    guild_id: guild.id,
    channel: {
      id: channel.id,
      name: channel.name,
      type: channel.type,
      guild_id: guild.id,
      parent_id: channel.parent_id,
      position: channel.position,
      nsfw: channel.nsfw ?? false,
      topic: channel.topic,
      rate_limit_per_user: channel.rate_limit_per_user ?? 0,
      flags: 0,
      permissions: String(channelPermissions(guild, channel, member.user_id)),
    },
    channel_id: channel.id,
    member: {
      ...memberWire(member, user),
      permissions: String(channelPermissions(guild, channel, member.user_id)),
    },
    app_permissions: String(channelPermissions(guild, channel, ids.applicationId)),
    locale: command.locale ?? 'en-US',
    guild_locale: guild.preferred_locale,
    entitlements: [],
    authorizing_integration_owners: { '0': guild.id },
    context: 0, // GUILD
    attachment_size_limit: 10 * 1024 * 1024,
  };
}

/**
 * A member's permissions in a channel (topics/permissions, "Permission Overwrites"): the guild
 * permissions, then the channel's @everyone overwrite, its role overwrites together, and the
 * member's own overwrite; ADMINISTRATOR (and the owner) bypass overwrites.
 */
export function channelPermissions(guild: FakeGuild, channel: FakeChannel, userId: string): bigint {
  let bits = guildPermissions(guild, userId);
  if ((bits & PermissionFlagsBits.Administrator) !== 0n) return bits;
  const member = guild.members.find((candidate) => candidate.user_id === userId);
  if (!member) return 0n;
  const overwrites = channel.permission_overwrites;
  const everyone = overwrites.find((overwrite) => overwrite.id === guild.id);
  if (everyone) bits = (bits & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const overwrite of overwrites) {
    if (overwrite.type !== 0 || !member.roles.includes(overwrite.id)) continue;
    allow |= BigInt(overwrite.allow);
    deny |= BigInt(overwrite.deny);
  }
  bits = (bits & ~deny) | allow;
  const own = overwrites.find((overwrite) => overwrite.type === 1 && overwrite.id === userId);
  if (own) bits = (bits & ~BigInt(own.deny)) | BigInt(own.allow);
  return bits;
}
