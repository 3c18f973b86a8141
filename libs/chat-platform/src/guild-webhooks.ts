import type { APIWebhook } from 'discord-api-types/v10';
import { ChatPlatformError } from './chat-platform-error';

/**
 * Webhook types (resources/webhook, "Webhook Types"): 1 INCOMING posts with a token of its own, 2
 * CHANNEL_FOLLOWER is the platform's copy of a followed announcement channel, 3 APPLICATION is an
 * interaction's. Only incoming webhooks can be made by a bot (Create Webhook makes type 1).
 */
export const INCOMING_WEBHOOK = 1;

/**
 * A guild's webhook as the service keeps it: what a bot can set (name, avatar, channel), and its
 * type. Never its token: the token is the webhook's credential (whoever holds it posts in the
 * channel), read only where a restore makes a webhook (CreatedWebhook).
 */
export interface PlatformWebhook {
  id: string;
  type: number;
  channel_id: string;
  name: string;
  /** The avatar's hash on the platform (`a_` first when it moves); null without one. */
  avatar: string | null;
}

/** A webhook a restore made or took over, with the address it is executed at. */
export interface CreatedWebhook extends PlatformWebhook {
  /** `{api}/webhooks/{id}/{token}`: a credential, never logged nor put in events. */
  address: string;
}

/** The body of Create Webhook: `avatar` as image data (a data URI). */
export interface WebhookInput {
  name: string;
  avatar?: string | null;
}

/** The body of Modify Webhook: a bot may also move it to another channel of the guild. */
export interface WebhookUpdate {
  name?: string;
  avatar?: string | null;
  channel_id?: string;
}

export function toPlatformWebhook(webhook: APIWebhook): PlatformWebhook {
  return {
    id: webhook.id,
    type: webhook.type,
    channel_id: webhook.channel_id ?? '',
    name: webhook.name ?? '',
    avatar: webhook.avatar,
  };
}

/**
 * The webhook with its address: the answer's `url` where the platform sends one, else made from
 * its token as the platform executes webhooks (`/webhooks/{id}/{token}`).
 */
export function toCreatedWebhook(webhook: APIWebhook, apiBaseUrl: string): CreatedWebhook {
  const address =
    webhook.url ?? (webhook.token ? `${apiBaseUrl}/webhooks/${webhook.id}/${webhook.token}` : null);
  // The docs answer an incoming webhook with its token; one without is the platform's fault.
  if (address === null) {
    throw new ChatPlatformError('PlatformUnavailable', 'the platform answered a webhook without its token', {
      status: null,
      platform_code: null,
      method: null,
      path: `/webhooks/${webhook.id}`,
    });
  }
  return { ...toPlatformWebhook(webhook), address };
}
