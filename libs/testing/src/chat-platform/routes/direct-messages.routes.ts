import { FormBody } from '../form-body';
import { platformError } from '../platform-error';
import type { DmRecord } from '../platform-state';
import { messageWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';

const MAX_CONTENT_LENGTH = 2000;
const MAX_EMBEDS = 10;

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
      form.check();
      if (content === '' && embeds.length === 0) throw platformError.emptyMessage();
      if (store.dmsClosed.has(recipientId)) throw platformError.cannotMessageUser();
      const record: DmRecord = {
        recipientId,
        channelId: params.channel_id,
        messageId: store.ids.next(),
        content,
        embeds: structuredClone(form.raw('embeds') as unknown[] | undefined) ?? [],
        sentAt: new Date(),
      };
      store.dmLog.push(record);
      return ok(messageWire(record, store.bot));
    },
  },
];
