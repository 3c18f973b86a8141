import { ChatPlatformClient, ChatPlatformError, PERMISSION } from '@lib/chat-platform';
import type { SeededGuild } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BillingEventStream } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

type Body = Record<string, unknown>;
const ADMIN_TOKEN = 'containment-admin-token';
const OWNER_TOKEN = 'containment-owner-token';
const RAIDER_BOT = '200000000000000077';
const RAIDER_BOT_TOKEN = 'containment-raider-bot-token';
const RAIDER_BOT_PERMISSIONS = P.ManageChannels | P.BanMembers | P.ViewChannel;

/**
 * Containment against a hijacked admin and a hijacked bot, end to end: the fake platform, live
 * sync on its gateway, AntiNuke's workflow on Temporal, the API. AntiNuke quarantines the raider
 * (their dangerous roles, a bot's own role's permissions), records exactly what it took and gives
 * it back; it never acts on the owner. A lockdown, by hand or by an incident, pauses invites and
 * DMs on the platform and takes SEND_MESSAGES from @everyone, and gives back exactly that.
 */
describe('AntiNuke containment', () => {
  const stack = new RecoveryStack({ worker: true, liveSync: true });
  let dataSource: DataSource;
  let billing: BillingEventStream;
  const owner = stack.user(OWNER);
  const client = (token: string) =>
    new ChatPlatformClient({ apiBaseUrl: `${stack.platform.url}/api`, botToken: token });

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    await stack.start();
    stack.platform.registerBotToken(ADMIN_TOKEN, ADMIN, 'admin');
    stack.platform.registerBotToken(OWNER_TOKEN, OWNER, 'owner');
    stack.platform.registerBotToken(RAIDER_BOT_TOKEN, RAIDER_BOT, 'helper-bot');
    await stack.onTheGateway();
  });

  afterAll(async () => {
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  const call = (method: string, path: string, body?: unknown) =>
    stack.call(stack.recovery, method, path, owner, body);

  const api = async (method: string, path: string, body?: unknown): Promise<Body> => {
    const answer = await call(method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer.body;
  };

  /**
   * An ENTERPRISE guild AntiNuke watches (threshold 3 in a minute) with the given containment, and
   * a second bot in it whose managed role can delete channels and ban (a bot the owner installed).
   */
  async function protectedGuild(settings: Body): Promise<{ seeded: SeededGuild; guildId: string }> {
    const seeded = seedProtectedGuild(stack.platform, `Contain ${uuidv7().slice(-6)}`);
    stack.platform.mutate(seeded.guildId, (guild) => {
      const roleId = `${BigInt(seeded.guildId) + 7n}`;
      guild.roles.push({
        id: roleId,
        name: 'helper-bot',
        color: 0,
        colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
        hoist: false,
        icon: null,
        unicode_emoji: null,
        position: 1,
        permissions: RAIDER_BOT_PERMISSIONS.toString(),
        managed: true,
        mentionable: false,
        flags: 0,
        tags: { bot_id: RAIDER_BOT },
      });
      guild.members.push({
        user_id: RAIDER_BOT,
        roles: [roleId],
        nick: null,
        joined_at: new Date().toISOString(),
      });
      seeded.roles['helper-bot'] = roleId;
    });
    const guildId = await stack.guildWatchedByAntiNuke(seeded.guildId, billing);
    await api('PUT', `/api/v1/guilds/${guildId}/antinuke`, { threshold: 3, window_seconds: 60, ...settings });
    return { seeded, guildId };
  }

  async function incidentOnceOpened(guildId: string, quarantined: boolean): Promise<Body> {
    return waitFor(
      'an incident',
      async () => {
        const [incident] = (await api('GET', `/api/v1/guilds/${guildId}/incidents`)).items as Body[];
        return incident && (!quarantined || incident.quarantine) ? incident : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: Error) => {
      const log = stack.recovery
        .output()
        .split('\n')
        .filter((line) => /antinuke|lockdown|quarantin|Lockdown|AntiNuke/.test(line));
      throw new Error(`${error.message}\n--- recovery ---\n${log.slice(-30).join('\n')}`);
    });
  }

  const member = (seeded: SeededGuild, userId: string) =>
    stack.platform.guild(seeded.guildId).members.find((candidate) => candidate.user_id === userId);
  const role = (seeded: SeededGuild, name: string) =>
    stack.platform.guild(seeded.guildId).roles.find((candidate) => candidate.id === seeded.roles[name])!;
  const everyone = (seeded: SeededGuild) =>
    stack.platform.guild(seeded.guildId).roles.find((candidate) => candidate.id === seeded.guildId)!;

  async function raid(raider: ChatPlatformClient, seeded: SeededGuild, channels: string[]): Promise<void> {
    for (const name of channels) await raider.deleteChannel(seeded.channels[name]);
  }

  it('quarantines a hijacked admin at once, the raid stops, and "give back" restores exactly what it took', async () => {
    const { seeded, guildId } = await protectedGuild({ auto_action_enabled: true });
    const adminRoles = [...member(seeded, ADMIN)!.roles];
    const raider = client(ADMIN_TOKEN);
    await raid(raider, seeded, ['rules', 'announcements', 'mod-chat']);

    const incident = await incidentOnceOpened(guildId, true);
    expect(incident).toMatchObject({ actor_platform_user_id: ADMIN, auto_action_taken: true });
    expect(incident.quarantine).toMatchObject({
      actor_platform_user_id: ADMIN,
      roles_removed: [{ id: seeded.roles.Admin, name: 'Admin' }],
      role_permissions_stripped: [],
      member_removed: null,
      released_at: null,
    });
    expect(member(seeded, ADMIN)!.roles).toEqual(adminRoles.filter((id) => id !== seeded.roles.Admin));
    // The raid's next action: the platform refuses it.
    await expect(raider.deleteChannel(seeded.channels.general)).rejects.toMatchObject({
      code: 'PermissionDenied',
    });
    expect(stack.platform.guild(seeded.guildId).channels.some((c) => c.id === seeded.channels.general)).toBe(
      true,
    );

    const release = `/api/v1/guilds/${guildId}/antinuke/incidents/${incident.id as string}/release`;
    const given = await api('POST', release);
    expect(given.release_result).toEqual({
      roles_given_back: [{ id: seeded.roles.Admin, name: 'Admin' }],
      permissions_given_back: [],
      not_given_back: [],
    });
    expect([...member(seeded, ADMIN)!.roles].sort()).toEqual([...adminRoles].sort());
    // Again: the same answer, nothing written twice.
    const memberWrites = () =>
      stack.platform
        .requestLog()
        .filter((request) => request.method === 'PATCH' && request.path.endsWith(`/members/${ADMIN}`)).length;
    const written = memberWrites();
    expect(await api('POST', release)).toEqual(given);
    expect(memberWrites()).toBe(written);
  });

  it('kicks the quarantined admin when the owner chose so, and will not give back a role deleted since', async () => {
    const { seeded, guildId } = await protectedGuild({ auto_action_enabled: true, auto_action_mode: 'kick' });
    await raid(client(ADMIN_TOKEN), seeded, ['rules', 'announcements', 'mod-chat']);
    const incident = await incidentOnceOpened(guildId, true);
    expect(incident.quarantine).toMatchObject({
      roles_removed: [{ id: seeded.roles.Admin, name: 'Admin' }],
      member_removed: 'kick',
    });
    expect(member(seeded, ADMIN)).toBeUndefined();
    await client(OWNER_TOKEN).deleteRole(seeded.guildId, seeded.roles.Admin);

    const given = await api(
      'POST',
      `/api/v1/guilds/${guildId}/antinuke/incidents/${incident.id as string}/release`,
    );
    expect(given.release_result).toEqual({
      roles_given_back: [],
      permissions_given_back: [],
      not_given_back: [{ id: seeded.roles.Admin, name: 'Admin', reason: 'role_deleted' }],
    });
    const unknown = await call('POST', `/api/v1/guilds/${guildId}/antinuke/incidents/${uuidv7()}/release`);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'ErrQuarantineNotFound' } });
  });

  it('strips a hijacked bot’s own role of its permissions, and gives them back', async () => {
    const { seeded, guildId } = await protectedGuild({ auto_action_enabled: true });
    const raider = client(RAIDER_BOT_TOKEN);
    await raid(raider, seeded, ['rules', 'announcements', 'mod-chat']);

    const incident = await incidentOnceOpened(guildId, true);
    expect(incident.quarantine).toMatchObject({
      actor_platform_user_id: RAIDER_BOT,
      roles_removed: [],
      role_permissions_stripped: [
        {
          id: seeded.roles['helper-bot'],
          name: 'helper-bot',
          permissions: RAIDER_BOT_PERMISSIONS.toString(),
        },
      ],
    });
    expect(role(seeded, 'helper-bot').permissions).toBe('0');
    expect(member(seeded, RAIDER_BOT)!.roles).toEqual([seeded.roles['helper-bot']]);
    await expect(raider.deleteChannel(seeded.channels.general)).rejects.toBeInstanceOf(ChatPlatformError);

    await api('POST', `/api/v1/guilds/${guildId}/antinuke/incidents/${incident.id as string}/release`);
    expect(role(seeded, 'helper-bot').permissions).toBe(RAIDER_BOT_PERMISSIONS.toString());
  });

  it('never acts on the owner', async () => {
    const { seeded, guildId } = await protectedGuild({ auto_action_enabled: true, auto_action_mode: 'ban' });
    const ownerRoles = [...member(seeded, OWNER)!.roles];
    await raid(client(OWNER_TOKEN), seeded, ['rules', 'announcements', 'mod-chat']);

    const incident = await incidentOnceOpened(guildId, false);
    expect(incident).toMatchObject({
      actor_platform_user_id: OWNER,
      auto_action_taken: false,
      auto_action_error: expect.stringContaining('never acts on the owner'),
      quarantine: null,
    });
    expect(member(seeded, OWNER)!.roles).toEqual(ownerRoles);
  });

  it('locks the guild down by hand, one at a time, and lifts itself giving back only what it took', async () => {
    const { seeded, guildId } = await protectedGuild({ auto_action_enabled: false });
    const before = everyone(seeded).permissions;
    expect(BigInt(before) & PERMISSION.SEND_MESSAGES).toBe(PERMISSION.SEND_MESSAGES);

    const started = await call('POST', `/api/v1/guilds/${guildId}/antinuke/lockdown`, { minutes: 30 });
    expect(started).toMatchObject({ status: 201, body: { state: 'active', send_messages_taken: true } });
    const lockdown = started.body;
    const paused = stack.platform.guild(seeded.guildId).incidents_data!;
    expect(paused.invites_disabled_until).toBe(lockdown.lockdown_until);
    expect(paused.dms_disabled_until).toBe(lockdown.lockdown_until);
    expect(BigInt(everyone(seeded).permissions)).toBe(BigInt(before) & ~PERMISSION.SEND_MESSAGES);
    expect(await call('POST', `/api/v1/guilds/${guildId}/antinuke/lockdown`, { minutes: 5 })).toMatchObject({
      status: 409,
      body: { code: 'ErrLockdownActive' },
    });
    expect(
      await call('POST', `/api/v1/guilds/${guildId}/antinuke/lockdown`, { minutes: 1441 }),
    ).toMatchObject({
      status: 400,
    });
    // A manager who is not the owner, and did not start it, cannot open the guild early.
    const lockdownPath = `/api/v1/guilds/${guildId}/antinuke/lockdown`;
    expect(await stack.call(stack.recovery, 'DELETE', lockdownPath, stack.user(ADMIN))).toMatchObject({
      status: 403,
      body: { code: 'ErrOwnerOnly' },
    });
    expect(stack.platform.guild(seeded.guildId).incidents_data?.invites_disabled_until).toBe(
      lockdown.lockdown_until,
    );

    // Meanwhile someone takes EMBED_LINKS from @everyone: that stays; SEND_MESSAGES comes back.
    stack.platform.mutate(seeded.guildId, (guild) => {
      const role = guild.roles.find((candidate) => candidate.id === guild.id)!;
      role.permissions = (BigInt(role.permissions) & ~P.EmbedLinks).toString();
    });
    // Its time is up (stored, so a restart would lift it too): the lifter lifts it.
    await dataSource.query(
      `UPDATE recovery.antinuke_lockdowns SET lockdown_until = now() - interval '1 second' WHERE id = $1`,
      [lockdown.id],
    );
    await waitFor(
      'the lockdown to lift itself',
      async () => (await api('GET', `/api/v1/guilds/${guildId}/antinuke/lockdown`)).lockdown === null,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(BigInt(everyone(seeded).permissions)).toBe(BigInt(before) & ~P.EmbedLinks);
    expect(stack.platform.guild(seeded.guildId).incidents_data).toEqual({
      invites_disabled_until: null,
      dms_disabled_until: null,
    });
    const [row] = await dataSource.query<{ lift_reason: string }[]>(
      `SELECT lift_reason FROM recovery.antinuke_lockdowns WHERE id = $1`,
      [lockdown.id],
    );
    expect(row.lift_reason).toBe('expired');
  });

  it('locks the guild down when an incident opens, and lifting by hand restores @everyone exactly', async () => {
    const { seeded, guildId } = await protectedGuild({
      auto_action_enabled: true,
      auto_lockdown_enabled: true,
    });
    const before = everyone(seeded).permissions;
    await raid(client(ADMIN_TOKEN), seeded, ['rules', 'announcements', 'mod-chat']);
    const incident = await incidentOnceOpened(guildId, true);

    const { lockdown } = await api('GET', `/api/v1/guilds/${guildId}/antinuke/lockdown`);
    expect(lockdown).toMatchObject({ state: 'active', incident_id: incident.id, send_messages_taken: true });
    expect(stack.platform.guild(seeded.guildId).incidents_data?.invites_disabled_until).toBe(
      (lockdown as Body).lockdown_until,
    );
    expect(BigInt(everyone(seeded).permissions) & PERMISSION.SEND_MESSAGES).toBe(0n);

    expect(await api('DELETE', `/api/v1/guilds/${guildId}/antinuke/lockdown`)).toMatchObject({
      state: 'lifted',
      lift_reason: 'user',
    });
    expect(everyone(seeded).permissions).toBe(before);
    expect(await call('DELETE', `/api/v1/guilds/${guildId}/antinuke/lockdown`)).toMatchObject({
      status: 404,
      body: { code: 'ErrNoLockdown' },
    });
  });
});
