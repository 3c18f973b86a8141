import { FormBody } from '../form-body';
import { INTERACTION_MESSAGE_LIMITS, type InteractionRecord, type OriginalMessage } from '../interactions';
import type { FakeUser } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { botMessageWire, userWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';

const ORIGINAL = '/webhooks/:application_id/:interaction_token/messages/@original';
const ALLOWED_MENTION_TYPES = ['roles', 'users', 'everyone'];
const MAX_ALLOWED_MENTION_IDS = 100;

/**
 * The interaction webhooks (interactions/receiving-and-responding, "Followup Messages"): the
 * interaction's token in the path is the authentication, no bot token is needed, and they are not
 * bound to the bot's global rate limit (the request handler limits the bot's token alone).
 */
export const interactionWebhookRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: ORIGINAL,
    access: { kind: 'token-in-path' },
    handle: ({ params }, store) => {
      const { record, message } = store.interactions.original(
        params.application_id,
        params.interaction_token,
        Date.now(),
      );
      return ok(originalMessageWire(record, message, store));
    },
  },
  {
    // Functions as Edit Webhook Message (resources/webhook): every field is optional and nullable.
    method: 'PATCH',
    path: ORIGINAL,
    access: { kind: 'token-in-path' },
    handle: ({ params, body }, store) => {
      const form = FormBody.object(body);
      const content = form.string('content', { max: INTERACTION_MESSAGE_LIMITS.maxContentLength });
      const embeds = form.objects('embeds', { max: INTERACTION_MESSAGE_LIMITS.maxEmbeds });
      const flags = form.integer('flags', { min: 0 });
      checkAllowedMentions(form);
      form.check();
      const { record, message } = store.interactions.editOriginal(
        params.application_id,
        params.interaction_token,
        {
          ...(content === undefined ? {} : { content }),
          ...(embeds === undefined
            ? {}
            : { embeds: embeds === null ? null : (form.raw('embeds') as unknown[]) }),
          ...(flags === undefined ? {} : { flags }),
        },
        Date.now(),
      );
      return ok(originalMessageWire(record, message, store));
    },
  },
];

/** `allowed_mentions`: `parse` of roles/users/everyone, at most 100 role and user ids each. */
function checkAllowedMentions(form: FormBody): void {
  const raw = form.raw('allowed_mentions');
  if (raw === undefined || raw === null) return;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    form.fail('allowed_mentions', 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    return;
  }
  const { parse, roles, users } = raw as Record<string, unknown>;
  if (parse !== undefined && parse !== null) {
    if (!Array.isArray(parse) || parse.some((type) => !ALLOWED_MENTION_TYPES.includes(type as string))) {
      form.fail(
        'allowed_mentions',
        'BASE_TYPE_CHOICES',
        `parse must list only ${ALLOWED_MENTION_TYPES.join(', ')}.`,
      );
    }
  }
  for (const ids of [roles, users]) {
    if (ids === undefined || ids === null) continue;
    if (!Array.isArray(ids) || ids.length > MAX_ALLOWED_MENTION_IDS) {
      form.fail(
        'allowed_mentions',
        'BASE_TYPE_MAX_LENGTH',
        `Must be ${MAX_ALLOWED_MENTION_IDS} or fewer in length.`,
      );
    }
  }
}

/** The Message object the platform answers for the original response: the app's own message. */
function originalMessageWire(record: InteractionRecord, message: OriginalMessage, store: PlatformStore) {
  const author: FakeUser = store.users.get(record.applicationId) ?? store.bot;
  const user = store.users.get(record.userId);
  return {
    ...botMessageWire({
      id: message.id,
      type: 20, // CHAT_INPUT_COMMAND
      channelId: record.channelId,
      author,
      content: message.content,
      embeds: message.embeds,
      sentAt: new Date(message.createdAt),
      editedAt: message.editedAt === null ? null : new Date(message.editedAt),
      flags: message.flags,
    }),
    webhook_id: record.applicationId,
    application_id: record.applicationId,
    interaction_metadata: {
      id: record.id,
      type: 2,
      ...(user ? { user: userWire(user) } : {}),
      authorizing_integration_owners: { '0': record.guildId },
    },
  };
}
