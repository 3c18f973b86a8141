import {
  AuditLogEvent,
  GatewayDispatchEvents,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { randomBytes } from 'node:crypto';
import type { AuditLogChange } from '../audit-log';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import type { FakeWebhook } from '../guild-expressions';
import type { GuildChange } from '../guild-change';
import { platformError } from '../platform-error';
import type { FakeChannel, FakeGuild } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { readWebhookAvatar } from '../webhook-avatars';
import { userWire } from '../wire-format';
import { type PlatformRoute, noContent, ok } from './platform-route';

/**
 * Discord's webhook routes for a bot (resources/webhook): Create Webhook, Get Channel and Guild
 * Webhooks, Get, Modify and Delete Webhook. MANAGE_WEBHOOKS: in the channel (its overwrites
 * counted) for a channel's webhooks or one webhook, in the guild for the guild's list; Get Webhook
 * also lets in the application that created it. Moving a webhook (`channel_id`) needs
 * MANAGE_WEBHOOKS in the channel it goes to as well, which must be a text or announcement channel
 * of the same guild (both undocumented: the stricter reading).
 *
 * A name is 1-80 characters without "clyde" or "discord" (case-insensitive); the avatar is image
 * data (`../webhook-avatars.ts`). At most 15 webhooks a channel (30007) and 1000 a guild (30058,
 * topics/opcodes-and-status-codes). Each change is a WEBHOOK_CREATE/UPDATE/DELETE audit-log entry,
 * the avatar under the key `avatar_hash` (resources/audit-log, "Audit Log Change Exceptions"), and
 * a WEBHOOKS_UPDATE gateway event for the channel.
 *
 * A webhook created by a bot has its application as `application_id` (the fake's bots are their
 * own application). Every answer holds the `token`, and the `url` to execute it at: the docs list
 * `url` for the webhooks OAuth2 flow only, while Discord's OpenAPI document puts it beside `token`
 * on every incoming webhook (`GuildIncomingWebhookResponse`); the fake sends both with each answer,
 * all of which go to a caller holding MANAGE_WEBHOOKS (or the creating application). The fake
 * executes no webhooks.
 */
const FORBIDDEN_NAME_PARTS = ['clyde', 'discord'];
export const MAX_CHANNEL_WEBHOOKS = 15;
export const MAX_GUILD_WEBHOOKS = 1000;
/** Where the platform executes a webhook; the fake serves no such route. */
const WEBHOOK_URL = 'https://discord.com/api/webhooks';
/** The channel types a webhook may post in (the fake's text-based guild channels). */
const WEBHOOK_CHANNEL_TYPES: readonly number[] = [0, 5];

const { ManageWebhooks: MANAGE_WEBHOOKS } = PermissionFlagsBits;

export function webhookWire(webhook: FakeWebhook, store: PlatformStore) {
  const creator = store.user(webhook.creator_id);
  return {
    id: webhook.id,
    type: webhook.type,
    guild_id: webhook.guild_id,
    channel_id: webhook.channel_id,
    user: userWire(creator),
    name: webhook.name,
    avatar: webhook.avatar,
    token: webhook.token,
    application_id: creator.bot ? creator.id : null,
    url: `${WEBHOOK_URL}/${webhook.id}/${webhook.token}`,
  };
}

function readName(form: FormBody, required: boolean): string | undefined {
  const name = form.string('name', { required, min: 1, max: 80 });
  if (name === null) return form.fail('name', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (name && FORBIDDEN_NAME_PARTS.some((part) => name.toLowerCase().includes(part))) {
    return form.fail('name', 'USERNAME_INVALID_CONTAINS', `Username cannot contain "${name}"`);
  }
  return name;
}

function guildWebhooks(store: PlatformStore, guildId: string): FakeWebhook[] {
  return [...store.webhooks.values()].filter((webhook) => webhook.guild_id === guildId);
}

/** Room for one more webhook in the channel, and in its guild. */
function requireRoom(store: PlatformStore, guild: FakeGuild, channel: FakeChannel): void {
  const inGuild = guildWebhooks(store, guild.id);
  if (inGuild.filter((webhook) => webhook.channel_id === channel.id).length >= MAX_CHANNEL_WEBHOOKS) {
    throw platformError.maxWebhooks();
  }
  if (inGuild.length >= MAX_GUILD_WEBHOOKS) throw platformError.maxGuildWebhooks();
}

/** The webhook, its guild and channel, once the actor may manage it. */
function managedWebhook(store: PlatformStore, webhookId: string, actorId: string) {
  const webhook = store.webhooks.get(webhookId);
  if (!webhook) throw platformError.unknownWebhook();
  const { guild, channel } = store.channel(webhook.channel_id, actorId);
  new BotAuthority(guild, actorId).requireInChannel(channel, MANAGE_WEBHOOKS);
  return { webhook, guild, channel };
}

const AUDITED = ['type', 'name', 'avatar', 'channel_id'] as const;

/** The audit-log changes of a webhook, its `avatar` as `avatar_hash`. */
function webhookChanges(before: FakeWebhook | null, after: FakeWebhook | null): AuditLogChange[] {
  const changes: AuditLogChange[] = [];
  for (const key of AUDITED) {
    const old = before?.[key] ?? null;
    const now = after?.[key] ?? null;
    if (old === now || (before && after && key === 'type')) continue;
    changes.push({
      key: key === 'avatar' ? 'avatar_hash' : key,
      ...(old !== null ? { old_value: old } : {}),
      ...(now !== null ? { new_value: now } : {}),
    });
  }
  return changes;
}

function webhookChange(
  guildId: string,
  webhookId: string,
  action: AuditLogEvent,
  changes: AuditLogChange[],
  channelId: string,
): Extract<GuildChange, { kind: 'entry' }> {
  return {
    kind: 'entry',
    guildId,
    entry: { target_id: webhookId, action_type: action, changes },
    dispatch: {
      event: GatewayDispatchEvents.WebhooksUpdate,
      data: { guild_id: guildId, channel_id: channelId },
      intent: GatewayIntentBits.GuildWebhooks,
    },
  };
}

export const webhookRoutes: PlatformRoute[] = [
  {
    method: 'POST',
    path: '/channels/:channel_id/webhooks',
    handle: ({ params, body, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      new BotAuthority(guild, actorId).requireInChannel(channel, MANAGE_WEBHOOKS);
      const form = FormBody.object(body ?? {});
      const name = readName(form, true);
      const avatar = readWebhookAvatar(form);
      form.check();
      requireRoom(store, guild, channel);
      const webhook: FakeWebhook = {
        id: store.ids.next(),
        type: 1,
        guild_id: guild.id,
        channel_id: channel.id,
        creator_id: actorId,
        name: name!,
        avatar: avatar?.hash ?? null,
        token: randomBytes(34).toString('base64url'),
      };
      store.webhooks.set(webhook.id, webhook);
      store.webhookAvatars.set(webhook.id, avatar ?? null);
      const changes = webhookChanges(null, webhook);
      return ok(webhookWire(webhook, store), [
        webhookChange(guild.id, webhook.id, AuditLogEvent.WebhookCreate, changes, channel.id),
      ]);
    },
  },
  {
    method: 'GET',
    path: '/channels/:channel_id/webhooks',
    handle: ({ params, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      new BotAuthority(guild, actorId).requireInChannel(channel, MANAGE_WEBHOOKS);
      return ok(
        guildWebhooks(store, guild.id)
          .filter((webhook) => webhook.channel_id === channel.id)
          .map((webhook) => webhookWire(webhook, store)),
      );
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/webhooks',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(MANAGE_WEBHOOKS);
      return ok(guildWebhooks(store, guild.id).map((webhook) => webhookWire(webhook, store)));
    },
  },
  {
    method: 'GET',
    path: '/webhooks/:webhook_id',
    handle: ({ params, actorId }, store) => {
      const webhook = store.webhooks.get(params.webhook_id);
      if (!webhook) throw platformError.unknownWebhook();
      // "requires the MANAGE_WEBHOOKS permission unless the application making the request owns the webhook".
      if (webhook.creator_id === actorId && store.user(actorId).bot) return ok(webhookWire(webhook, store));
      return ok(webhookWire(managedWebhook(store, params.webhook_id, actorId).webhook, store));
    },
  },
  {
    method: 'PATCH',
    path: '/webhooks/:webhook_id',
    handle: ({ params, body, actorId }, store) => {
      const { webhook, guild } = managedWebhook(store, params.webhook_id, actorId);
      const form = FormBody.object(body ?? {});
      const name = readName(form, false);
      const avatar = readWebhookAvatar(form);
      const channelId = form.snowflake('channel_id');
      if (channelId === null) form.fail('channel_id', 'BASE_TYPE_REQUIRED', 'This field is required');
      form.check();
      const before = structuredClone(webhook);
      if (channelId && channelId !== webhook.channel_id) {
        const target = guild.channels.find((channel) => channel.id === channelId);
        if (!target) throw platformError.unknownChannel();
        if (!WEBHOOK_CHANNEL_TYPES.includes(target.type)) throw platformError.cannotActOnChannelType();
        new BotAuthority(guild, actorId).requireInChannel(target, MANAGE_WEBHOOKS);
        requireRoom(store, guild, target);
        webhook.channel_id = target.id;
      }
      if (name !== undefined) webhook.name = name;
      if (avatar !== undefined) {
        webhook.avatar = avatar?.hash ?? null;
        store.webhookAvatars.set(webhook.id, avatar);
      }
      const changes = webhookChanges(before, webhook);
      const answer = webhookWire(webhook, store);
      if (changes.length === 0) return ok(answer);
      const update = (channel: string) =>
        webhookChange(guild.id, webhook.id, AuditLogEvent.WebhookUpdate, changes, channel);
      if (before.channel_id === webhook.channel_id) return ok(answer, [update(webhook.channel_id)]);
      // A move changes both channels' webhooks: the channel it left hears of it too (undocumented).
      return ok(answer, [update(webhook.channel_id), { ...update(before.channel_id), entry: null }]);
    },
  },
  {
    method: 'DELETE',
    path: '/webhooks/:webhook_id',
    handle: ({ params, actorId }, store) => {
      const { webhook, guild } = managedWebhook(store, params.webhook_id, actorId);
      store.webhooks.delete(webhook.id);
      store.webhookAvatars.set(webhook.id, null);
      const changes = webhookChanges(webhook, null);
      return noContent([
        webhookChange(guild.id, webhook.id, AuditLogEvent.WebhookDelete, changes, webhook.channel_id),
      ]);
    },
  },
];
