import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import { FakeChatPlatform } from './fake-chat-platform';
import type { SeededGuild } from './guild-seed';
import { type Json, type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const OWNER = '200000000000000001';
const RAIDER = '200000000000000002';
const ALICE = '200000000000000003';
const MOD = '200000000000000004';
const RAIDER_TOKEN = 'raider-bot-token';
const MOD_TOKEN = 'mod-bot-token';

/** Audit-log entries and the accounts they name, from requests on loopback. */
describe(`${FakeChatPlatform.name} audit log`, () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let seeded: SeededGuild;

  beforeEach(() => {
    seeded = sut.seedGuild({
      name: 'Audited',
      owner: { id: OWNER, username: 'owner' },
      roles: [
        { name: 'Member', permissions: P.ViewChannel },
        { name: 'Moderator', permissions: P.KickMembers | P.ManageChannels },
        { name: 'Raider', permissions: P.Administrator },
      ],
      channels: [{ name: 'general' }, { name: 'random' }],
      members: [
        { username: 'raider', id: RAIDER, roles: ['Raider'] },
        { username: 'alice', id: ALICE, roles: ['Member'] },
        { username: 'mod', id: MOD, roles: ['Moderator'] },
      ],
    });
    sut.registerBotToken(RAIDER_TOKEN, RAIDER);
    sut.registerBotToken(MOD_TOKEN, MOD);
  });

  async function call(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; reason?: string } = {},
  ): Promise<JsonReply> {
    const headers: Record<string, string> = { Authorization: `Bot ${options.token ?? sut.botToken}` };
    if (options.reason !== undefined) headers['X-Audit-Log-Reason'] = encodeURIComponent(options.reason);
    return sendJson(`${sut.url}/api/v10${path}`, method, options.body, headers);
  }

  it('records each change with who asked and why; mutate() records nothing', async () => {
    const { guildId, channels, roles } = seeded;
    await call('PATCH', `/channels/${channels.general}`, {
      body: { name: 'lobby' },
      reason: 'tidy up — ok?',
    });
    await call('PUT', `/channels/${channels.random}/permissions/${roles.Member}`, {
      token: RAIDER_TOKEN,
      body: { type: 0, allow: '0', deny: String(P.ViewChannel) },
    });
    await call('PUT', `/guilds/${guildId}/members/${ALICE}/roles/${roles.Moderator}`, {
      token: RAIDER_TOKEN,
    });
    await call('PATCH', `/guilds/${guildId}`, { body: { name: 'Renamed' } });
    sut.mutate(guildId, (guild) => (guild.channels = []));

    expect(sut.auditLog(guildId).map(({ id: _id, ...entry }) => entry)).toEqual([
      {
        guild_id: guildId,
        user_id: sut.botUserId,
        target_id: channels.general,
        action_type: AuditLogEvent.ChannelUpdate,
        changes: [{ key: 'name', old_value: 'general', new_value: 'lobby' }],
        reason: 'tidy up — ok?',
      },
      {
        guild_id: guildId,
        user_id: RAIDER,
        target_id: channels.random,
        action_type: AuditLogEvent.ChannelOverwriteCreate,
        changes: [
          { key: 'type', new_value: 0 },
          { key: 'allow', new_value: '0' },
          { key: 'deny', new_value: String(P.ViewChannel) },
        ],
        options: { id: roles.Member, type: '0', role_name: 'Member' },
      },
      {
        guild_id: guildId,
        user_id: RAIDER,
        target_id: ALICE,
        action_type: AuditLogEvent.MemberRoleUpdate,
        changes: [{ key: '$add', new_value: [{ id: roles.Moderator, name: 'Moderator' }] }],
      },
      {
        guild_id: guildId,
        user_id: sut.botUserId,
        target_id: guildId,
        action_type: AuditLogEvent.GuildUpdate,
        changes: [{ key: 'name', old_value: 'Audited', new_value: 'Renamed' }],
      },
    ]);
  });

  it('answers GET audit-logs newest first, filtered by user, action, before and limit, with the users named', async () => {
    const { guildId, channels, roles } = seeded;
    await call('DELETE', `/channels/${channels.general}`, { token: RAIDER_TOKEN });
    await call('DELETE', `/guilds/${guildId}/roles/${roles.Member}`, { token: RAIDER_TOKEN });
    await call('DELETE', `/guilds/${guildId}/members/${ALICE}`, { token: RAIDER_TOKEN, reason: 'bye' });
    await call('POST', `/guilds/${guildId}/roles`, { body: { name: 'new' } });

    const all = await call('GET', `/guilds/${guildId}/audit-logs`);
    const entries = all.body.audit_log_entries as Json[];
    expect(entries.map((e) => e.action_type)).toEqual([
      AuditLogEvent.RoleCreate,
      AuditLogEvent.MemberKick,
      AuditLogEvent.RoleDelete,
      AuditLogEvent.ChannelDelete,
    ]);
    expect(entries[1]).toEqual({
      id: expect.any(String),
      user_id: RAIDER,
      target_id: ALICE,
      action_type: AuditLogEvent.MemberKick,
      reason: 'bye',
    });
    expect((all.body.users as Json[]).map((u) => u.id).sort()).toEqual([RAIDER, ALICE, sut.botUserId].sort());

    const byRaider = await call('GET', `/guilds/${guildId}/audit-logs?user_id=${RAIDER}&limit=2`);
    expect((byRaider.body.audit_log_entries as Json[]).map((e) => e.action_type)).toEqual([
      AuditLogEvent.MemberKick,
      AuditLogEvent.RoleDelete,
    ]);
    const older = await call('GET', `/guilds/${guildId}/audit-logs?before=${entries[1].id as string}`);
    expect((older.body.audit_log_entries as Json[]).map((e) => e.id)).toEqual([entries[2].id, entries[3].id]);
    const deletes = await call(
      'GET',
      `/guilds/${guildId}/audit-logs?action_type=${AuditLogEvent.ChannelDelete}`,
    );
    expect(deletes.body.audit_log_entries).toEqual([entries[3]]);
    expect((await call('GET', `/guilds/${guildId}/audit-logs?limit=101`)).status).toBe(400);
    // The moderator's account lacks VIEW_AUDIT_LOG.
    expect((await call('GET', `/guilds/${guildId}/audit-logs`, { token: MOD_TOKEN })).status).toBe(403);
  });

  it('lets a registered bot token act only with its own permissions and rank', async () => {
    const { guildId, roles, channels } = seeded;
    // The moderator may kick and manage channels, but not roles, and not someone ranked above.
    expect(
      (await call('DELETE', `/guilds/${guildId}/roles/${roles.Member}`, { token: MOD_TOKEN })).status,
    ).toBe(403);
    expect((await call('DELETE', `/guilds/${guildId}/members/${RAIDER}`, { token: MOD_TOKEN })).status).toBe(
      403,
    );
    expect(
      (await call('DELETE', `/guilds/${guildId}/members/${OWNER}`, { token: RAIDER_TOKEN })).status,
    ).toBe(403);
    expect((await call('DELETE', `/channels/${channels.random}`, { token: MOD_TOKEN })).status).toBe(200);
    // A bot can't ban above itself either; an unknown token is 401.
    expect((await call('PUT', `/guilds/${guildId}/bans/${RAIDER}`, { token: MOD_TOKEN })).status).toBe(403);
    expect((await call('GET', `/guilds/${guildId}`, { token: 'nobody' })).status).toBe(401);
    expect((await call('GET', '/users/@me', { token: RAIDER_TOKEN })).body).toMatchObject({ id: RAIDER });

    // Once removed from the guild, the account no longer knows it.
    expect((await call('DELETE', `/guilds/${guildId}/members/${MOD}`, { token: RAIDER_TOKEN })).status).toBe(
      204,
    );
    expect((await call('GET', `/guilds/${guildId}`, { token: MOD_TOKEN })).status).toBe(404);
    expect(sut.auditLog(guildId).map((e) => [e.user_id, e.action_type])).toEqual([
      [MOD, AuditLogEvent.ChannelDelete],
      [RAIDER, AuditLogEvent.MemberKick],
    ]);
  });

  it('bans a member once: they leave, the ban is readable, and banning again records nothing', async () => {
    const { guildId } = seeded;
    expect(
      (await call('PUT', `/guilds/${guildId}/bans/${ALICE}`, { token: RAIDER_TOKEN, reason: 'spam' })).status,
    ).toBe(204);
    expect((await call('PUT', `/guilds/${guildId}/bans/${ALICE}`, { token: RAIDER_TOKEN })).status).toBe(204);

    expect(sut.guild(guildId).members.map((m) => m.user_id)).not.toContain(ALICE);
    expect((await call('GET', `/guilds/${guildId}/bans/${ALICE}`)).body).toMatchObject({
      reason: 'spam',
      user: { id: ALICE },
    });
    expect((await call('GET', `/guilds/${guildId}/bans/${MOD}`)).body).toMatchObject({ code: 10026 });
    expect(sut.auditLog(guildId).map((e) => [e.action_type, e.target_id, e.reason])).toEqual([
      [AuditLogEvent.MemberBanAdd, ALICE, 'spam'],
    ]);
  });

  it('lifts a ban once, with BAN_MEMBERS only, and records who lifted it and why', async () => {
    const { guildId } = seeded;
    await call('PUT', `/guilds/${guildId}/bans/${ALICE}`, { token: RAIDER_TOKEN, reason: 'spam' });
    // The moderator may kick but not ban, so not lift a ban either.
    expect(
      (await call('DELETE', `/guilds/${guildId}/bans/${ALICE}`, { token: MOD_TOKEN })).body,
    ).toMatchObject({ code: 50013 });

    const lifted = await call('DELETE', `/guilds/${guildId}/bans/${ALICE}`, { reason: 'appeal accepted' });
    const again = await call('DELETE', `/guilds/${guildId}/bans/${ALICE}`);

    expect(lifted.status).toBe(204);
    expect(again).toMatchObject({ status: 404, body: { code: 10026, message: 'Unknown Ban' } });
    expect((await call('GET', `/guilds/${guildId}/bans/${ALICE}`)).status).toBe(404);
    expect(sut.auditLog(guildId).map((e) => [e.action_type, e.user_id, e.target_id, e.reason])).toEqual([
      [AuditLogEvent.MemberBanAdd, RAIDER, ALICE, 'spam'],
      [AuditLogEvent.MemberBanRemove, sut.botUserId, ALICE, 'appeal accepted'],
    ]);
    // The audit log's answer names the user the entry is about.
    const log = await call(
      'GET',
      `/guilds/${guildId}/audit-logs?action_type=${AuditLogEvent.MemberBanRemove}`,
    );
    expect((log.body.users as Json[]).map((user) => user.id)).toContain(ALICE);
  });
});
