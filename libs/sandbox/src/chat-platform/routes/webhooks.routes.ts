import {
  AuditLogEvent,
  GatewayDispatchEvents,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { randomBytes } from 'node:crypto';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import type { FakeWebhook } from '../guild-expressions';
import { userWire } from '../wire-format';
import type { PlatformStore } from '../platform-store';
import { type PlatformRoute, ok } from './platform-route';

/**
 * Discord's "Create Webhook" and "Get Channel Webhooks" (resources/webhook): MANAGE_WEBHOOKS; a
 * name of 1-80 characters that does not contain "clyde" or "discord" (case-insensitive); a
 * WEBHOOK_CREATE audit-log entry and a WEBHOOKS_UPDATE gateway event. The answer leaves out the
 * optional `url` (discord-api-spec's GuildIncomingWebhookResponse): the fake executes no webhooks.
 */
const FORBIDDEN_NAME_PARTS = ['clyde', 'discord'];

function webhookWire(webhook: FakeWebhook, store: PlatformStore) {
  return {
    id: webhook.id,
    type: webhook.type,
    guild_id: webhook.guild_id,
    channel_id: webhook.channel_id,
    user: userWire(store.user(webhook.creator_id)),
    name: webhook.name,
    avatar: webhook.avatar,
    token: webhook.token,
    application_id: null,
  };
}

export const webhookRoutes: PlatformRoute[] = [
  {
    method: 'POST',
    path: '/channels/:channel_id/webhooks',
    handle: ({ params, body, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      // Manage Webhooks in the channel, its overwrites counted.
      new BotAuthority(guild, actorId).requireInChannel(channel, PermissionFlagsBits.ManageWebhooks);
      const form = FormBody.object(body ?? {});
      const name = form.string('name', { required: true, min: 1, max: 80 });
      if (name && FORBIDDEN_NAME_PARTS.some((part) => name.toLowerCase().includes(part))) {
        form.fail('name', 'USERNAME_INVALID_CONTAINS', `Username cannot contain "${name}"`);
      }
      form.raw('avatar');
      form.check();
      const webhook: FakeWebhook = {
        id: store.ids.next(),
        type: 1,
        guild_id: guild.id,
        channel_id: channel.id,
        creator_id: actorId,
        name: name!,
        avatar: null,
        token: randomBytes(34).toString('base64url'),
      };
      store.webhooks.set(webhook.id, webhook);
      return ok(webhookWire(webhook, store), [
        {
          kind: 'entry',
          guildId: guild.id,
          entry: {
            target_id: webhook.id,
            action_type: AuditLogEvent.WebhookCreate,
            changes: [
              { key: 'type', new_value: webhook.type },
              { key: 'name', new_value: webhook.name },
              { key: 'channel_id', new_value: webhook.channel_id },
            ],
          },
          dispatch: {
            event: GatewayDispatchEvents.WebhooksUpdate,
            data: { guild_id: guild.id, channel_id: channel.id },
            intent: GatewayIntentBits.GuildWebhooks,
          },
        },
      ]);
    },
  },
  {
    method: 'GET',
    path: '/channels/:channel_id/webhooks',
    handle: ({ params, actorId }, store) => {
      const { guild, channel } = store.channel(params.channel_id, actorId);
      // Manage Webhooks in the channel, its overwrites counted.
      new BotAuthority(guild, actorId).requireInChannel(channel, PermissionFlagsBits.ManageWebhooks);
      return ok(
        [...store.webhooks.values()]
          .filter((webhook) => webhook.channel_id === channel.id)
          .map((webhook) => webhookWire(webhook, store)),
      );
    },
  },
];
