import { guildPermissions } from '../bot-authority';
import { FormBody } from '../form-body';
import { isMember } from '../platform-store';
import { currentUserWire, dmChannelWire, partialGuildWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';

export const userRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/users/@me',
    // The one endpoint here a user's access token may call: "Login with ..." reads who signed in.
    access: { kind: 'bot-or-user', scope: 'identify' },
    handle: ({ actorId }, store) => ok(currentUserWire(store.user(actorId))),
  },
  {
    method: 'GET',
    path: '/users/@me/guilds',
    // A user's token granted `guilds` lists that user's guilds; the bot's token, the bot's.
    access: { kind: 'bot-or-user', scope: 'guilds' },
    handle: ({ actorId, query }, store) => {
      const form = FormBody.query(query, ['limit']);
      const limit = form.integer('limit', { min: 1, max: 200 }) ?? 200;
      const before = form.snowflake('before');
      const after = form.snowflake('after');
      const withCounts = form.string('with_counts');
      form.check();
      // By id, oldest first; `before` alone pages backwards and gives the page just before it.
      const matching = [...store.guilds.values()]
        .filter((guild) => isMember(guild, actorId))
        .filter((guild) => before == null || BigInt(guild.id) < BigInt(before))
        .filter((guild) => after == null || BigInt(guild.id) > BigInt(after))
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      const page = before != null && after == null ? matching.slice(-limit) : matching.slice(0, limit);
      return ok(
        page.map((guild) =>
          partialGuildWire(guild, actorId, guildPermissions(guild, actorId), withCounts === 'true'),
        ),
      );
    },
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
