import { FormBody } from '../form-body';
import { platformError } from '../platform-error';
import type { DmRecord } from '../platform-state';
import { messageWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';

const MAX_CONTENT_LENGTH = 2000;
const MAX_EMBEDS = 10;
const MAX_NONCE_LENGTH = 25;

export const directMessageRoutes: PlatformRoute[] = [
  {
    method: 'POST',
    path: '/channels/:channel_id/messages',
    handle: ({ params, body }, store) => {
      const recipientId = store.dmRecipient(params.channel_id);
      // Messages in guild channels are outside the subset this fake serves.
      if (recipientId === undefined) throw platformError.unknownChannel();
      const form = FormBody.object(body);
      const content = form.string('content', { max: MAX_CONTENT_LENGTH }) ?? '';
      const embeds = form.objects('embeds', { max: MAX_EMBEDS }) ?? [];
      const nonce = nonceOf(form);
      const enforceNonce = form.boolean('enforce_nonce') ?? false;
      form.check();
      if (content === '' && embeds.length === 0) throw platformError.emptyMessage();
      const sentAt = new Date();
      // A retry of a message already created answers that message, and creates nothing.
      if (enforceNonce && nonce !== undefined) {
        const earlier = store.recentDmWithNonce(params.channel_id, nonce, sentAt.getTime());
        if (earlier) return ok(messageWire(earlier, store.bot));
      }
      if (store.dmsClosed.has(recipientId)) throw platformError.cannotMessageUser();
      const record: DmRecord = {
        recipientId,
        channelId: params.channel_id,
        messageId: store.ids.next(),
        content,
        embeds: structuredClone(form.raw('embeds') as unknown[] | undefined) ?? [],
        ...(nonce === undefined ? {} : { nonce }),
        sentAt,
      };
      store.recordDm(record);
      return ok(messageWire(record, store.bot));
    },
  },
];

/** A string of up to 25 characters or an integer, as the platform takes it. */
function nonceOf(form: FormBody): string | number | undefined {
  const raw = form.raw('nonce');
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
  if (typeof raw === 'string') return form.string('nonce', { max: MAX_NONCE_LENGTH }) ?? undefined;
  if (raw === undefined || raw === null) return undefined;
  return form.fail('nonce', 'BASE_TYPE_STRING', 'Must be a string or an integer.');
}
