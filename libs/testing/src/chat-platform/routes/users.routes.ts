import { FormBody } from '../form-body';
import { dmChannelWire, userWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';

export const userRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/users/@me',
    // The one endpoint here a user's access token may call: "Login with ..." reads who signed in.
    access: { kind: 'bot-or-user', scope: 'identify' },
    handle: ({ actorId }, store) => ok(userWire(store.user(actorId))),
  },
  {
    method: 'POST',
    path: '/users/@me/channels',
    handle: ({ body }, store) => {
      const form = FormBody.object(body);
      const recipientId = form.snowflake('recipient_id', { required: true });
      form.check();
      const recipient = store.user(recipientId!);
      return ok(dmChannelWire(store.openDm(recipient.id), recipient));
    },
  },
];
