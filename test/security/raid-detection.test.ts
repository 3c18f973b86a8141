import type { SeededGuild } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream } from '../support/billing-events';
import { type JsonReply, sendJson } from '../support/http-json';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

type Body = Record<string, unknown>;

/** A bot account of the guild's, with the Admin role, whose token was stolen. */
const HIJACKED_BOT = '200000000000000071';
/** A moderator who kicks members as moderators do. */
const MODERATOR = '200000000000000072';
const TOKENS: Record<string, string> = {
  [ADMIN]: 'raid-detection-admin-token',
  [HIJACKED_BOT]: 'raid-detection-bot-token',
  [MODERATOR]: 'raid-detection-moderator-token',
};
const RAIDERS = [
  ['a hijacked admin', ADMIN],
  ['a hijacked bot token', HIJACKED_BOT],
] as const;

/**
 * Raids AntiNuke never counted before it weighed every kind of action into one score per actor:
 * each opens an incident naming the raider, played as a hijacked admin and as a hijacked bot token
 * through the platform's API, against the running apps (live sync on the fake platform's gateway,
 * AntiNuke's workflow). Moderation below the score opens none.
 */
describe('AntiNuke raid detection', () => {
  const stack = new RecoveryStack({ worker: true, liveSync: true });
  let billing: BillingEventStream;
  const owner = stack.user(OWNER);

  beforeAll(async () => {
    billing = new BillingEventStream();
    await stack.start();
    for (const [userId, token] of Object.entries(TOKENS)) stack.platform.registerBotToken(token, userId);
    await stack.onTheGateway();
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
  });

  const api = async (method: string, path: string, body?: unknown): Promise<Body> => {
    const answer = await stack.call(stack.recovery, method, path, owner, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer.body;
  };

  /** A request to the platform's API with the account's token; a refusal fails the scenario. */
  async function as(actor: string, method: string, path: string, body?: unknown): Promise<JsonReply> {
    const answer = await sendJson(`${stack.platform.url}/api/v10${path}`, method, body, {
      Authorization: `Bot ${TOKENS[actor]}`,
    });
    if (answer.status >= 300) throw new Error(`${method} ${path} as ${actor}: ${JSON.stringify(answer)}`);
    return answer;
  }

  /** An ENTERPRISE guild AntiNuke watches (no auto-action), with the hijacked bot and a moderator in it. */
  async function watchedGuild(settings: Body = {}): Promise<{ seeded: SeededGuild; guildId: string }> {
    const seeded = seedProtectedGuild(
      stack.platform,
      `Raid ${uuidv7().slice(-6)}`,
      0,
      8,
      undefined,
      (spec) => {
        spec.roles!.push({ name: 'Kicker', permissions: P.KickMembers });
        spec.members!.push(
          { username: 'helper-bot', id: HIJACKED_BOT, roles: ['Admin'] },
          { username: 'moderator', id: MODERATOR, roles: ['Kicker'] },
        );
      },
    );
    const guildId = await stack.guildWatchedByAntiNuke(seeded.guildId, billing);
    await api('PUT', `/api/v1/guilds/${guildId}/antinuke`, {
      threshold: 3,
      window_seconds: 10,
      auto_action_enabled: false,
      ...settings,
    });
    return { seeded, guildId };
  }

  async function incidentsOnceOpened(guildId: string): Promise<Body[]> {
    return waitFor(
      'an incident',
      async () => {
        const items = (await api('GET', `/api/v1/guilds/${guildId}/incidents`)).items as Body[];
        return items.length > 0 ? items : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${stack.recovery.output().slice(-4000)}`);
    });
  }

  const crowd = (seeded: SeededGuild) =>
    Object.entries(seeded.members)
      .filter(([name]) => name.startsWith('crowd-'))
      .map(([, id]) => id);

  describe.each(RAIDERS)('as %s', (_who, raider) => {
    it('opens an incident for a paced raid: two actions of different kinds per short window', async () => {
      // A one-second window: two actions every 1.5 s never make three in it; nine within ten
      // minutes (three times the threshold) are a raid all the same.
      const { seeded, guildId } = await watchedGuild({ window_seconds: 1 });
      const members = crowd(seeded);
      const pairs: (() => Promise<unknown>)[][] = [
        [
          () => as(raider, 'DELETE', `/channels/${seeded.channels.rules}`),
          () => as(raider, 'DELETE', `/guilds/${seeded.guildId}/roles/${seeded.roles.Moderator}`),
        ],
        [
          () => as(raider, 'PUT', `/guilds/${seeded.guildId}/bans/${members[0]}`, {}),
          () => as(raider, 'DELETE', `/guilds/${seeded.guildId}/members/${members[1]}`),
        ],
        [
          () => as(raider, 'DELETE', `/channels/${seeded.channels.announcements}`),
          () => as(raider, 'DELETE', `/guilds/${seeded.guildId}/members/${members[2]}`),
        ],
        [
          () => as(raider, 'PUT', `/guilds/${seeded.guildId}/bans/${members[3]}`, {}),
          () => as(raider, 'DELETE', `/channels/${seeded.channels['mod-chat']}`),
        ],
        [
          () => as(raider, 'DELETE', `/guilds/${seeded.guildId}/members/${members[4]}`),
          () => as(raider, 'PUT', `/guilds/${seeded.guildId}/bans/${members[5]}`, {}),
        ],
      ];
      for (const [index, pair] of pairs.entries()) {
        // The pacing is the raid's own: each pair well over a window after the last.
        if (index > 0) await new Promise((resolve) => setTimeout(resolve, 1_500));
        for (const action of pair) await action();
      }
      expect(await incidentsOnceOpened(guildId)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'mixed', count: 9 }),
      ]);
    });

    it('opens an incident for one dangerous permission given to @everyone', async () => {
      const { seeded, guildId } = await watchedGuild();
      await as(raider, 'PATCH', `/guilds/${seeded.guildId}/roles/${seeded.everyoneRoleId}`, {
        permissions: String(P.ViewChannel | P.SendMessages | P.Administrator),
      });
      expect(await incidentsOnceOpened(guildId)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'permission_grant', count: 1 }),
      ]);
    });

    it('opens an incident for roles stripped from members', async () => {
      const { seeded, guildId } = await watchedGuild();
      for (const member of crowd(seeded).slice(0, 3)) {
        await as(
          raider,
          'DELETE',
          `/guilds/${seeded.guildId}/members/${member}/roles/${seeded.roles.Member}`,
        );
      }
      expect(await incidentsOnceOpened(guildId)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'member_role_remove', count: 3 }),
      ]);
    });

    it('opens an incident for one prune, weighed by the members it removed', async () => {
      const { seeded, guildId } = await watchedGuild();
      const pruned = await as(raider, 'POST', `/guilds/${seeded.guildId}/prune`, {
        days: 1,
        include_roles: [seeded.roles.Member, seeded.roles.Moderator],
      });
      expect(pruned.body.pruned).toBeGreaterThanOrEqual(3);
      expect(await incidentsOnceOpened(guildId)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'member_prune', count: 1 }),
      ]);
    });

    it('opens an incident for webhooks created', async () => {
      const { seeded, guildId } = await watchedGuild();
      for (const name of ['hook-1', 'hook-2', 'hook-3']) {
        await as(raider, 'POST', `/channels/${seeded.channels.general}/webhooks`, { name });
      }
      expect(await incidentsOnceOpened(guildId)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'webhook_create', count: 3 }),
      ]);
    });

    it('opens no incident for moderation below the score, only for the raid after it', async () => {
      const { seeded, guildId } = await watchedGuild();
      const [first, second] = crowd(seeded);
      await as(MODERATOR, 'DELETE', `/guilds/${seeded.guildId}/members/${first}`);
      await as(MODERATOR, 'DELETE', `/guilds/${seeded.guildId}/members/${second}`);
      // The raid comes after the kicks on the guild's one lane: once its incident is there, the
      // kicks were counted, and made none.
      for (const channel of ['rules', 'announcements', 'mod-chat']) {
        await as(raider, 'DELETE', `/channels/${seeded.channels[channel]}`);
      }
      expect(await incidentsOnceOpened(guildId)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'channel_delete', count: 3 }),
      ]);
    });
  });
});
