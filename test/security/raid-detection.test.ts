import { ChatPlatformClient } from '@lib/chat-platform';
import type { GuildSpec, SeededGuild } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { type JsonReply, sendJson } from '../support/http-json';
import { RecoveryStack } from '../support/recovery-stack';
import { uniquePng } from '../support/expression-raid';
import { ADMIN, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';
import { type Damage, damage, damageIn, type PlatformRead, RaidUndo } from './support/raid-undo';

type Body = Record<string, unknown>;

/** A bot account of the guild's, with the Admin role, whose token was stolen. */
const HIJACKED_BOT = '200000000000000071';
/** A moderator who kicks members as moderators do. */
const MODERATOR = '200000000000000072';
const TOKENS: Record<string, string> = {
  [ADMIN]: 'raid-detection-admin-token',
  [HIJACKED_BOT]: 'raid-detection-bot-token',
  [MODERATOR]: 'raid-detection-moderator-token',
  [OWNER]: 'raid-detection-owner-token',
};
const RAIDERS = [
  ['a hijacked admin', ADMIN],
  ['a hijacked bot token', HIJACKED_BOT],
] as const;

/**
 * Raids AntiNuke never counted before it weighed every kind of action into one score per actor:
 * each opens an incident naming the raider, played as a hijacked admin and as a hijacked bot token
 * through the platform's API, against the running apps (live sync on the fake platform's gateway,
 * AntiNuke's workflow). Moderation below the score opens none. After each, "Undo this raid"
 * previews exactly the raid's damage and the restore leaves the guild as it was before the raid,
 * as far as a bot can put it back (members removed from the guild cannot be added back).
 */
describe('AntiNuke raid detection', () => {
  const stack = new RecoveryStack({ worker: true, liveSync: true });
  let billing: BillingEventStream;
  let dataSource: DataSource;
  let undo: RaidUndo;
  const owner = stack.user(OWNER);

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    undo = new RaidUndo(stack, dataSource);
    for (const [userId, token] of Object.entries(TOKENS)) stack.platform.registerBotToken(token, userId);
    await stack.onTheGateway();
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
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

  /**
   * An ENTERPRISE guild AntiNuke watches (no auto-action), with the hijacked bot and a moderator in
   * it, a manual snapshot, and live sync journalling its changes (the owner set #general's topic and
   * created a role after the snapshot); `before` is the platform's read of it before the raid.
   */
  async function watchedGuild(
    settings: Body = {},
    bot?: GuildSpec['bot'],
    adjust: (spec: GuildSpec) => void = () => {},
  ): Promise<{ seeded: SeededGuild; guildId: string; before: PlatformRead }> {
    const mirroredBefore = await undo.mirroredGuilds();
    const seeded = seedProtectedGuild(stack.platform, `Raid ${uuidv7().slice(-6)}`, 0, 8, bot, (spec) => {
      adjust(spec);
      spec.roles!.push({ name: 'Kicker', permissions: P.KickMembers });
      spec.members!.push(
        { username: 'helper-bot', id: HIJACKED_BOT, roles: ['Admin'] },
        { username: 'moderator', id: MODERATOR, roles: ['Kicker'] },
      );
    });
    const guildId = await stack.guildWatchedByAntiNuke(seeded.guildId, billing);
    await api('PUT', `/api/v1/guilds/${guildId}/antinuke`, {
      threshold: 3,
      window_seconds: 10,
      auto_action_enabled: false,
      ...settings,
    });
    await api('POST', `/api/v1/guilds/${guildId}/snapshots`, { description: 'known good' });
    const admin = new ChatPlatformClient({
      apiBaseUrl: `${stack.platform.url}/api`,
      botToken: TOKENS[OWNER],
    });
    await undo.journalling(
      guildId,
      mirroredBefore,
      () => admin.updateChannel(seeded.channels.general, { topic: 'Anything goes, kindly' }),
      async () => (await admin.createRole(seeded.guildId, { name: 'Event Staff', permissions: '0' })).id,
    );
    return { seeded, guildId, before: await undo.platformRead(seeded.guildId) };
  }

  /**
   * "Undo this raid" once the journal holds the raider's `actions` entries: its preview is exactly
   * `expected`, and the restore leaves the guild as `before` was, less the members no longer in it
   * (kicked, banned or pruned: a bot cannot add a member back; those banned have the ban lifted).
   */
  async function undoneExactly(
    guildId: string,
    seeded: SeededGuild,
    raider: string,
    actions: number,
    before: PlatformRead,
    expected: Damage,
    gone: readonly string[] = [],
  ): Promise<void> {
    await undo.journalHoldsAll(guildId, raider, actions);
    const [incident] = await incidentsOnceOpened(guildId);
    const { body, preview } = await undo.undoPreview(OWNER, guildId, incident.id as string);
    expect(damageIn(preview)).toEqual(expected);
    await undo.restore(OWNER, body, preview);
    const members = new Map([...before.members].filter(([id]) => !gone.includes(id)));
    await undo.expectAsBefore(guildId, seeded.guildId, { ...before, members });
  }

  /**
   * The guild's incidents once one is open and, given `count`, once the first has counted that
   * many actions: on a busy machine live sync and the workflow may still be catching up with a raid
   * the test has finished playing.
   */
  async function incidentsOnceOpened(guildId: string, count = 0): Promise<Body[]> {
    return waitFor(
      count > 0 ? `an incident of ${count} actions` : 'an incident',
      async () => {
        const items = (await api('GET', `/api/v1/guilds/${guildId}/incidents`)).items as Body[];
        return items.length > 0 && Number(items[0].count) >= count ? items : undefined;
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
      const { seeded, guildId, before } = await watchedGuild({ window_seconds: 1 });
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
      expect(await incidentsOnceOpened(guildId, 9)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'mixed', count: 9 }),
      ]);
      // Everything from the raid's first action is undone, the deleted role given back to those
      // still here who held it; the kicked and banned stay out (the bans lifted).
      const banned = [members[0], members[3], members[5]];
      await undoneExactly(
        guildId,
        seeded,
        raider,
        10,
        before,
        damage({
          roles_to_create: ['Moderator'],
          channels_to_create: ['announcements', 'mod-chat', 'rules'],
          // The role's overwrites went with it, and #rules' with the channel.
          overrides_to_apply: ['Staff: Moderator', 'rules: Moderator'],
          bans_to_lift: banned,
        }),
        [...banned, members[1], members[2], members[4]],
      );
    });

    it('opens an incident for a fast raid, and its undo puts back each kind of damage', async () => {
      // Member and Moderator have icons of their own, which the snapshot before the raid keeps.
      const icons = { Member: uniquePng(), Moderator: uniquePng() };
      const { seeded, guildId, before } = await watchedGuild({}, undefined, (spec) => {
        spec.features = ['ROLE_ICONS'];
        spec.roles = spec.roles!.map((role) =>
          role.name === 'Member' || role.name === 'Moderator' ? { ...role, icon: icons[role.name] } : role,
        );
      });
      const g = seeded.guildId;
      const banned = crowd(seeded)[1];
      await as(raider, 'PUT', `/channels/${seeded.channels.Staff}/permissions/${seeded.everyoneRoleId}`, {
        type: 0,
        allow: String(P.ViewChannel),
        deny: '0',
      });
      await as(raider, 'PUT', `/channels/${seeded.channels.rules}/permissions/${seeded.roles.Moderator}`, {
        type: 0,
        allow: '0',
        deny: String(P.SendMessages),
      });
      await as(raider, 'PATCH', `/channels/${seeded.channels['mod-chat']}`, {
        name: 'pwned',
        topic: 'raided',
      });
      await as(raider, 'DELETE', `/channels/${seeded.channels.general}`);
      await as(raider, 'DELETE', `/guilds/${g}/roles/${seeded.roles.Member}`);
      await as(raider, 'PATCH', `/guilds/${g}/roles/${seeded.roles.Moderator}`, {
        icon: `data:image/png;base64,${uniquePng().toString('base64')}`,
      });
      await as(raider, 'PUT', `/guilds/${g}/bans/${banned}`, {});
      expect(await incidentsOnceOpened(guildId)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider }),
      ]);
      // Everyone who held Member and is still here gets it back; #general is the system channel
      // again; the overwrites are as they were.
      const memberHolders = [...before.members].filter(
        ([id, roles]) => roles.includes(seeded.roles.Member) && id !== banned,
      );
      await undoneExactly(
        guildId,
        seeded,
        raider,
        7,
        before,
        damage({
          roles_to_create: ['Member'],
          roles_to_update: [{ name: 'Moderator', target: 'Moderator', changed_fields: ['icon'] }],
          channels_to_create: ['general'],
          channels_to_update: [{ name: 'pwned', target: 'mod-chat', changed_fields: ['name', 'topic'] }],
          overrides_to_apply: ['Staff: @everyone', 'rules: Moderator'],
          guild_settings_diff: ['system_channel_id'],
          member_roles_to_restore: [`Member: ${memberHolders.length}`],
          members_to_update: memberHolders.length,
          bans_to_lift: [banned],
        }),
        [banned],
      );
      // Both roles have their icons back, the images the snapshot kept (read from the CDN).
      const after = await undo.reader.getRoles(g);
      for (const name of ['Member', 'Moderator'] as const) {
        const role = after.find((candidate) => candidate.name === name)!;
        const image = await fetch(`${stack.platform.cdnUrl}/role-icons/${role.id}/${role.icon}.png`);
        expect(Buffer.from(await image.arrayBuffer()).equals(icons[name])).toBe(true);
      }
    });

    it('kicked first: once the bot is back, the audit log names the raider and the raid is undone', async () => {
      // The bot's role lowest, as an owner who never moved it up has it: the raider outranks it.
      const { seeded, guildId, before } = await watchedGuild({}, { rolePosition: 1 });
      const g = seeded.guildId;
      const bot = stack.platform.botUserId;
      const banned = crowd(seeded)[1];
      await as(raider, 'DELETE', `/guilds/${g}/members/${bot}`);
      // The guild is inactive until the bot is back, so the incident is read from the database.
      const [incident] = await waitFor(
        'the removal’s incident',
        async () => {
          const rows = await dataSource.query<Body[]>(
            `SELECT id, actor_platform_user_id, action, count, first_action_at
               FROM recovery.antinuke_incidents WHERE guild_id = $1`,
            [guildId],
          );
          return rows.length > 0 ? rows : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(incident).toEqual(expect.objectContaining({ action: 'bot_removed', count: 1 }));
      // With the bot gone, nothing of what follows reaches live sync or its journal. #general and
      // Event Staff were changed or made after the last snapshot: the snapshot alone is not enough.
      const eventStaff = before.state.roles.find((role) => role.name === 'Event Staff')!.id;
      await as(raider, 'DELETE', `/channels/${seeded.channels.rules}`);
      await as(raider, 'DELETE', `/guilds/${g}/roles/${seeded.roles.Moderator}`);
      await as(raider, 'DELETE', `/channels/${seeded.channels.general}`);
      await as(raider, 'DELETE', `/guilds/${g}/roles/${eventStaff}`);
      await as(raider, 'PUT', `/guilds/${g}/bans/${banned}`, {});
      // While it is out, the guild is inactive: nothing of it can be read, nor undone.
      const early = await stack.call(
        stack.recovery,
        'POST',
        `/api/v1/guilds/${guildId}/antinuke/incidents/${incident.id as string}/undo`,
        owner,
      );
      expect(early).toMatchObject({ status: 409, body: { code: 'ErrGuildInactive' } });
      // The owner adds the bot back, registers the guild again and gives the bot Admin.
      stack.platform.addBot(g, bot, OWNER);
      await api('POST', '/api/v1/guilds', { platform_guild_id: g });
      await as(OWNER, 'PUT', `/guilds/${g}/members/${bot}/roles/${seeded.roles.Admin}`);
      // Live sync follows the guild again and reads the audit log back: the kick names the raider
      // and starts the raid, before anyone asks for the undo.
      const named = await waitFor(
        'the raider named',
        async () => {
          const [row] = await dataSource.query<{ actor_platform_user_id: string; first_action_at: Date }[]>(
            `SELECT actor_platform_user_id, first_action_at FROM recovery.antinuke_incidents WHERE id = $1`,
            [incident.id],
          );
          return row.actor_platform_user_id === null ? undefined : row;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(named.actor_platform_user_id).toBe(raider);
      expect(named.first_action_at.getTime()).toBeLessThanOrEqual(
        new Date(incident.first_action_at as string).getTime(),
      );

      // The undo (asked twice, reading the log back each time): exactly the raid after the kick,
      // none of the owner's changes from before it (the role, #general's topic) nor the bot's return.
      const { body, preview } = await undo.undoPreview(OWNER, guildId, incident.id as string);
      expect(damageIn(preview)).toEqual(
        damage({
          roles_to_create: ['Event Staff', 'Moderator'],
          channels_to_create: ['general', 'rules'],
          overrides_to_apply: ['Staff: Moderator', 'rules: Moderator'],
          guild_settings_diff: ['system_channel_id'],
          member_roles_to_restore: ['Moderator: 2'],
          members_to_update: 2,
          bans_to_lift: [banned],
        }),
      );
      // The raider's entries are journalled once each, though read back three times.
      const journalled = await dataSource.query<{ action_type: number; target_id: string }[]>(
        `SELECT action_type, target_id FROM recovery.change_journal_audit_entries
          WHERE guild_id = $1 AND actor_id = $2 ORDER BY at, entry_id`,
        [guildId, raider],
      );
      expect(journalled).toEqual([
        { action_type: 20, target_id: bot },
        { action_type: 12, target_id: seeded.channels.rules },
        { action_type: 32, target_id: seeded.roles.Moderator },
        { action_type: 12, target_id: seeded.channels.general },
        { action_type: 32, target_id: eventStaff },
        { action_type: 22, target_id: banned },
      ]);

      await undo.restore(OWNER, body, preview);
      // As before the kick, less the banned member (a bot cannot add a member back) and with the
      // bot holding what the owner gave it on its return.
      const members = new Map([...before.members].filter(([id]) => id !== banned));
      members.set(bot, [seeded.roles.Admin]);
      await undo.expectAsBefore(guildId, g, { ...before, members });
    });

    it('opens an incident for one dangerous permission given to @everyone', async () => {
      const { seeded, guildId, before } = await watchedGuild();
      await as(raider, 'PATCH', `/guilds/${seeded.guildId}/roles/${seeded.everyoneRoleId}`, {
        permissions: String(P.ViewChannel | P.SendMessages | P.Administrator),
      });
      expect(await incidentsOnceOpened(guildId, 1)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'permission_grant', count: 1 }),
      ]);
      await undoneExactly(
        guildId,
        seeded,
        raider,
        1,
        before,
        damage({
          roles_to_update: [{ name: '@everyone', target: '@everyone', changed_fields: ['permissions'] }],
        }),
      );
    });

    it('opens an incident for roles stripped from members', async () => {
      const { seeded, guildId, before } = await watchedGuild();
      const stripped = crowd(seeded).slice(0, 3);
      for (const member of stripped) {
        await as(
          raider,
          'DELETE',
          `/guilds/${seeded.guildId}/members/${member}/roles/${seeded.roles.Member}`,
        );
      }
      expect(await incidentsOnceOpened(guildId, 3)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'member_role_remove', count: 3 }),
      ]);
      await undoneExactly(
        guildId,
        seeded,
        raider,
        3,
        before,
        damage({ member_roles_to_restore: ['Member: 3'], members_to_update: stripped.length }),
      );
    });

    it('opens an incident for one prune, weighed by the members it removed', async () => {
      const { seeded, guildId, before } = await watchedGuild();
      const pruned = await as(raider, 'POST', `/guilds/${seeded.guildId}/prune`, {
        days: 1,
        include_roles: [seeded.roles.Member, seeded.roles.Moderator],
      });
      expect(pruned.body.pruned).toBeGreaterThanOrEqual(3);
      expect(await incidentsOnceOpened(guildId, 1)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'member_prune', count: 1 }),
      ]);
      // The pruned left the guild: a bot cannot add a member back, so the undo has nothing to do
      // and says so (it names none of them as absent: it is composed from the members now).
      const left = await undo.platformRead(seeded.guildId);
      const removed = [...before.members.keys()].filter((id) => !left.members.has(id));
      expect(removed).toHaveLength(pruned.body.pruned as number);
      await undoneExactly(guildId, seeded, raider, 1, before, damage({}), removed);
    });

    it('opens an incident for webhooks created', async () => {
      const { seeded, guildId, before } = await watchedGuild();
      for (const name of ['hook-1', 'hook-2', 'hook-3']) {
        await as(raider, 'POST', `/channels/${seeded.channels.general}/webhooks`, { name });
      }
      expect(await incidentsOnceOpened(guildId, 3)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'webhook_create', count: 3 }),
      ]);
      // The snapshot from before the raid holds the guild's webhooks (none here): the undo deletes
      // the raider's three, and changes nothing else.
      await undoneExactly(guildId, seeded, raider, 3, before, damage({}));
      const hooks = await as(OWNER, 'GET', `/channels/${seeded.channels.general}/webhooks`);
      expect(hooks.body).toEqual([]);
    });

    it('opens no incident for moderation below the score, only for the raid after it', async () => {
      const { seeded, guildId, before } = await watchedGuild();
      const [first, second] = crowd(seeded);
      await as(MODERATOR, 'DELETE', `/guilds/${seeded.guildId}/members/${first}`);
      await as(MODERATOR, 'DELETE', `/guilds/${seeded.guildId}/members/${second}`);
      // The raid comes after the kicks on the guild's one lane: once its incident is there, the
      // kicks were counted, and made none.
      for (const channel of ['rules', 'announcements', 'mod-chat']) {
        await as(raider, 'DELETE', `/channels/${seeded.channels[channel]}`);
      }
      expect(await incidentsOnceOpened(guildId, 3)).toEqual([
        expect.objectContaining({ actor_platform_user_id: raider, action: 'channel_delete', count: 3 }),
      ]);
      // The moderator's kicks are not the raid's: the undo puts back the channels only.
      await undoneExactly(
        guildId,
        seeded,
        raider,
        3,
        before,
        damage({
          channels_to_create: ['announcements', 'mod-chat', 'rules'],
          overrides_to_apply: ['rules: Moderator'],
        }),
        [first, second],
      );
    });
  });
});
