import type { GuildState, PlatformBan, PlatformMember } from '@lib/chat-platform';
import { AuditLogEvent } from 'discord-api-types/v10';
import { encodeMemberRoles } from '../../snapshots/member-roles-codec';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import type { JournalAuditEntry, JournalChangeRow } from '../../sync/change-journal-entry';
import type { GuildEvent } from '../../sync/guild-events';
import { GuildMirror } from '../../sync/guild-mirror';
import {
  CATEGORY,
  channel,
  GENERAL,
  GUILD,
  guildState,
  MEMBERS,
  MODS,
  role,
  RULES,
} from '../../sync/guild-state.fixture';
import { composePreRaidState, type PreRaidInput } from './pre-raid-state';

const RAIDER = '300000000000000001';
const ADMIN = '300000000000000002';
const ALICE = '300000000000000011';
const BOB = '300000000000000012';
const SPAM = '100000000000000099';
const HELPERS = '100000000000000013';
const on = { platformGuildId: GUILD };
const T0 = Date.parse('2026-11-29T08:00:00Z');

/**
 * A guild followed by a mirror that journals as live sync does; each change is made by someone at a
 * time (ms after T0) and, like the platform, written to the audit log.
 */
class Timeline {
  readonly mirror = new GuildMirror(guildState());
  readonly journal: JournalChangeRow[] = [];
  readonly entries: JournalAuditEntry[] = [];
  private entryId = 1;

  act(
    at: number,
    actor: string,
    actionType: number,
    targetId: string,
    event: GuildEvent,
    changes: JournalAuditEntry['changes'] = [],
  ): void {
    const before = this.mirror.beforeImage(event);
    if (before) this.journal.push({ ...before, at: new Date(T0 + at + 30) });
    this.mirror.apply(event);
    this.entries.push({
      entry_id: String(this.entryId++),
      actor_id: actor,
      action_type: actionType,
      target_id: targetId,
      changes,
      at: new Date(T0 + at),
    });
  }

  input(fields: Partial<PreRaidInput> = {}): PreRaidInput {
    return {
      now: this.mirror.state(),
      membership: { members: [], bans: [] },
      snapshot: null,
      actorEntries: this.entries.filter((entry) => entry.actor_id === RAIDER && entry.at.getTime() >= T0),
      journal: this.journal.filter((change) => change.at.getTime() >= T0 - 4_000),
      targets: { banned: [], rolesStripped: [] },
      ...fields,
    };
  }
}

function member(id: string, roles: string[]): PlatformMember {
  return { user: { id, username: id, global_name: null, bot: false }, roles, nick: null };
}

function ban(id: string): PlatformBan {
  return { user: { id, username: id, global_name: null, bot: false }, reason: 'raid' };
}

function snapshotOf(state: GuildState, members: PlatformMember[] = []): SnapshotPayload {
  return {
    ...structuredClone(state),
    version: 2,
    snapshot_at: new Date(T0 - 60_000).toISOString(),
    member_roles: encodeMemberRoles(members.map((m) => ({ id: m.user.id, roles: m.roles }))),
    bans: [],
  };
}

/** The fixture guild with #general renamed #chat by another admin, before the raid. */
function legitimatelyChanged(): GuildState {
  const state = guildState();
  return { ...state, channels: state.channels.map((c) => (c.id === GENERAL ? { ...c, name: 'chat' } : c)) };
}

/** The raid: the mods role and #rules deleted, #chat renamed #raided, #spam created, the server renamed. */
function raid(timeline: Timeline): void {
  const general = () => timeline.mirror.state().channels.find((c) => c.id === GENERAL)!;
  timeline.act(
    -60_000,
    ADMIN,
    AuditLogEvent.ChannelUpdate,
    GENERAL,
    {
      ...on,
      type: 'channel_update',
      channel: { ...general(), name: 'chat' },
      overrides: [],
    },
    [{ key: 'name', old_value: 'general', new_value: 'chat' }],
  );
  timeline.act(0, RAIDER, AuditLogEvent.RoleDelete, MODS, { ...on, type: 'role_delete', roleId: MODS });
  timeline.act(100, RAIDER, AuditLogEvent.ChannelDelete, RULES, {
    ...on,
    type: 'channel_delete',
    channelId: RULES,
  });
  timeline.act(
    200,
    RAIDER,
    AuditLogEvent.ChannelUpdate,
    GENERAL,
    {
      ...on,
      type: 'channel_update',
      channel: { ...general(), name: 'raided', topic: 'gg' },
      overrides: [],
    },
    [
      { key: 'name', old_value: 'chat', new_value: 'raided' },
      { key: 'topic', old_value: null, new_value: 'gg' },
    ],
  );
  timeline.act(300, RAIDER, AuditLogEvent.ChannelCreate, SPAM, {
    ...on,
    type: 'channel_create',
    channel: channel(SPAM, 'spam', 3),
    overrides: [],
  });
}

describe(composePreRaidState.name, () => {
  it('puts back what the raider deleted and changed, removes what they created, and keeps the legitimate change', () => {
    const timeline = new Timeline();
    raid(timeline);

    const { state, unknown } = composePreRaidState(timeline.input());

    expect(state).toEqual(legitimatelyChanged());
    expect(unknown).toEqual([]);
  });

  it('takes a deleted object from the snapshot before the raid when the journal lacks it', () => {
    const timeline = new Timeline();
    raid(timeline);

    const { state } = composePreRaidState(
      timeline.input({ journal: [], snapshot: snapshotOf(legitimatelyChanged()) }),
    );

    // The rename is reverted from the audit log's old values; the deletes from the snapshot.
    expect(state).toEqual(legitimatelyChanged());
  });

  it('brings the snapshot’s version of a deleted object up to date with its delete entry’s old values', () => {
    // Seen by nobody (the bot kicked first): after the snapshot an admin set #rules' topic and
    // renamed the mods role, then the raider deleted both; the journal holds neither.
    const timeline = new Timeline();
    const snapshot = snapshotOf(guildState());
    const rulesBefore = { ...snapshot.channels.find((c) => c.id === RULES)!, topic: 'be kind' };
    const modsBefore = { ...snapshot.roles.find((r) => r.id === MODS)!, name: 'Moderators' };
    timeline.act(0, RAIDER, AuditLogEvent.RoleDelete, MODS, { ...on, type: 'role_delete', roleId: MODS }, [
      { key: 'name', old_value: 'Moderators' },
      { key: 'permissions', old_value: modsBefore.permissions },
      { key: 'position', old_value: 99 },
    ]);
    timeline.act(
      100,
      RAIDER,
      AuditLogEvent.ChannelDelete,
      RULES,
      { ...on, type: 'channel_delete', channelId: RULES },
      [
        { key: 'name', old_value: rulesBefore.name },
        { key: 'topic', old_value: 'be kind' },
        { key: 'flags', old_value: 0 },
      ],
    );

    const { state } = composePreRaidState(timeline.input({ journal: [], snapshot }));

    expect(state.channels.find((c) => c.id === RULES)).toEqual(rulesBefore);
    // Its place is the snapshot's, the position in the entry another numbering's.
    expect(state.roles.find((r) => r.id === MODS)).toEqual(modsBefore);
  });

  it('rebuilds a deleted channel from the audit log alone, and names what nothing kept', () => {
    const timeline = new Timeline();
    const now = guildState();
    const rules = now.channels.find((c) => c.id === RULES)!;
    const input = timeline.input({
      now: { ...now, channels: now.channels.filter((c) => c.id !== RULES) },
      actorEntries: [
        {
          entry_id: '1',
          actor_id: RAIDER,
          action_type: AuditLogEvent.ChannelDelete,
          target_id: RULES,
          changes: [
            { key: 'name', old_value: 'rules' },
            { key: 'type', old_value: 0 },
            { key: 'position', old_value: 2 },
            { key: 'nsfw', old_value: false },
            { key: 'rate_limit_per_user', old_value: rules.rate_limit_per_user },
          ],
          at: new Date(T0),
        },
        {
          entry_id: '2',
          actor_id: RAIDER,
          action_type: AuditLogEvent.RoleDelete,
          target_id: HELPERS,
          changes: [],
          at: new Date(T0),
        },
      ],
    });

    const { state, unknown } = composePreRaidState(input);

    expect(state.channels.find((c) => c.id === RULES)).toEqual({ ...rules, parent_id: null });
    expect(unknown).toEqual([{ object_type: 'role', object_id: HELPERS }]);
  });

  it('lifts the raider’s bans and gives members back the roles taken from them or deleted with a role', () => {
    const timeline = new Timeline();
    raid(timeline);
    const before = [member(ALICE, [MODS, MEMBERS]), member(BOB, [MEMBERS])];

    const { membership } = composePreRaidState(
      timeline.input({
        snapshot: snapshotOf(guildState(), before),
        membership: {
          members: [member(ALICE, []), member(BOB, [])],
          bans: [ban('300000000000000021'), ban('300000000000000022')],
        },
        targets: {
          banned: ['300000000000000021'],
          rolesStripped: [
            { user_id: ALICE, role_id: MEMBERS },
            { user_id: BOB, role_id: MEMBERS },
          ],
        },
      }),
    );

    expect(membership.bans).toEqual([ban('300000000000000022')]);
    expect(membership.members).toEqual([member(ALICE, [MEMBERS, MODS]), member(BOB, [MEMBERS])]);
  });

  it('keeps members and bans it could not read as unreadable', () => {
    const timeline = new Timeline();
    const unreadable = { unreadable: 'no intent' };
    const { membership } = composePreRaidState(
      timeline.input({ membership: { members: unreadable, bans: unreadable } }),
    );
    expect(membership).toEqual({ members: unreadable, bans: unreadable });
  });

  it('reverts only the settings and fields the raider changed', () => {
    const timeline = new Timeline();
    const settings = () => timeline.mirror.state().guild;
    const members = () => timeline.mirror.state().roles.find((r) => r.id === MEMBERS)!;
    timeline.act(
      0,
      RAIDER,
      AuditLogEvent.GuildUpdate,
      GUILD,
      {
        ...on,
        type: 'guild_settings_update',
        settings: { ...settings(), name: 'owned' },
      },
      [{ key: 'name', old_value: settings().name, new_value: 'owned' }],
    );
    timeline.act(
      100,
      RAIDER,
      AuditLogEvent.RoleUpdate,
      MEMBERS,
      {
        ...on,
        type: 'role_update',
        role: { ...members(), permissions: '8' },
      },
      [{ key: 'permissions', old_value: members().permissions, new_value: '8' }],
    );
    // Afterwards another admin changes other fields of both: kept.
    timeline.act(
      200,
      ADMIN,
      AuditLogEvent.GuildUpdate,
      GUILD,
      {
        ...on,
        type: 'guild_settings_update',
        settings: { ...settings(), afk_timeout: 900 },
      },
      [{ key: 'afk_timeout', old_value: settings().afk_timeout, new_value: 900 }],
    );
    timeline.act(
      300,
      ADMIN,
      AuditLogEvent.RoleUpdate,
      MEMBERS,
      {
        ...on,
        type: 'role_update',
        role: { ...members(), name: 'folks' },
      },
      [{ key: 'name', old_value: 'members', new_value: 'folks' }],
    );

    const { state } = composePreRaidState(timeline.input());

    expect(state.guild).toEqual({ ...guildState().guild, afk_timeout: 900 });
    expect(state.roles).toEqual(
      guildState().roles.map((r) => (r.id === MEMBERS ? { ...r, name: 'folks' } : r)),
    );
  });

  it('puts a deleted category’s channels back in it and the settings that named a deleted channel', () => {
    const timeline = new Timeline();
    timeline.act(0, RAIDER, AuditLogEvent.ChannelDelete, CATEGORY, {
      ...on,
      type: 'channel_delete',
      channelId: CATEGORY,
    });
    timeline.act(100, RAIDER, AuditLogEvent.ChannelDelete, GENERAL, {
      ...on,
      type: 'channel_delete',
      channelId: GENERAL,
    });

    const { state } = composePreRaidState(timeline.input());

    expect(state).toEqual(guildState());
  });

  it('removes a role the raider created with the overrides naming it', () => {
    const timeline = new Timeline();
    const evil = role(HELPERS, 'evil', 3);
    timeline.act(0, RAIDER, AuditLogEvent.RoleCreate, HELPERS, { ...on, type: 'role_create', role: evil });
    const general = timeline.mirror.state().channels.find((c) => c.id === GENERAL)!;
    timeline.act(100, RAIDER, AuditLogEvent.ChannelOverwriteCreate, GENERAL, {
      ...on,
      type: 'channel_update',
      channel: general,
      overrides: [{ channel_id: GENERAL, id: HELPERS, type: 'role', allow: '8', deny: '0' }],
    });

    expect(composePreRaidState(timeline.input()).state).toEqual(guildState());
  });
});

describe('composePreRaidState, members from the audit log', () => {
  it('lifts bans and gives back roles the actor’s entries show, recorded on the incident or not', () => {
    const entry = (
      id: string,
      action: number,
      target: string,
      changes: JournalAuditEntry['changes'] = [],
    ) => ({
      entry_id: id,
      actor_id: RAIDER,
      action_type: action,
      target_id: target,
      changes,
      at: new Date(T0),
    });
    const timeline = new Timeline();
    const { membership } = composePreRaidState(
      timeline.input({
        membership: { members: [member(ALICE, [])], bans: [ban(BOB)] },
        actorEntries: [
          entry('1', AuditLogEvent.MemberBanAdd, BOB),
          entry('2', AuditLogEvent.MemberRoleUpdate, ALICE, [
            { key: '$remove', new_value: [{ id: MEMBERS, name: 'members' }] },
          ]),
        ],
      }),
    );
    expect(membership).toEqual({ members: [member(ALICE, [MEMBERS])], bans: [] });
  });
});

describe('composePreRaidState, roles in order', () => {
  it('puts deleted roles back where they were though another admin’s new role renumbered them just before', () => {
    const timeline = new Timeline();
    const staff = role(HELPERS, 'staff', 1);
    // The platform renumbers every role above the one created: updates nobody's audit log names.
    const renumbered = (state: GuildState) =>
      state.roles.map((r) => (r.position >= 1 ? { ...r, position: r.position + 1 } : r));
    timeline.act(-500, ADMIN, AuditLogEvent.RoleCreate, HELPERS, { ...on, type: 'role_create', role: staff });
    for (const shifted of renumbered(guildState())) {
      if (shifted.position > 1) timeline.mirror.apply({ ...on, type: 'role_update', role: shifted });
      const before = timeline.mirror.beforeImage({ ...on, type: 'role_update', role: shifted });
      if (before) timeline.journal.push({ ...before, at: new Date(T0 - 400) });
    }
    timeline.act(0, RAIDER, AuditLogEvent.RoleDelete, MODS, { ...on, type: 'role_delete', roleId: MODS });
    timeline.act(100, RAIDER, AuditLogEvent.RoleDelete, MEMBERS, {
      ...on,
      type: 'role_delete',
      roleId: MEMBERS,
    });

    const { state } = composePreRaidState(timeline.input());

    expect(state.roles.map((r) => [r.name, r.position])).toEqual([
      ['@everyone', 0],
      ['staff', 1],
      ['members', 2],
      ['mods', 3],
    ]);
  });

  describe('an update nothing journalled (the raid’s first event is the one live sync read the guild on)', () => {
    /** @everyone-like: MEMBERS given Administrator by the raider, a channel renamed; no before-image. */
    function grant(timeline: Timeline): void {
      const members = timeline.mirror.state().roles.find((r) => r.id === MEMBERS)!;
      const general = timeline.mirror.state().channels.find((c) => c.id === GENERAL)!;
      timeline.act(
        0,
        RAIDER,
        AuditLogEvent.RoleUpdate,
        MEMBERS,
        { ...on, type: 'role_update', role: { ...members, permissions: '8' } },
        [{ key: 'permissions', old_value: members.permissions, new_value: '8' }],
      );
      timeline.act(
        100,
        RAIDER,
        AuditLogEvent.ChannelUpdate,
        GENERAL,
        {
          ...on,
          type: 'channel_update',
          channel: { ...general, name: 'owned' },
          overrides: timeline.mirror.state().permission_overrides.filter((o) => o.channel_id === GENERAL),
        },
        [{ key: 'name', old_value: general.name, new_value: 'owned' }],
      );
    }

    it('reverts the fields from the audit log’s old values when no snapshot has the object either', () => {
      const timeline = new Timeline();
      grant(timeline);

      const { state, unknown } = composePreRaidState(timeline.input({ journal: [], snapshot: null }));

      expect(state).toEqual(guildState());
      expect(unknown).toEqual([]);
    });

    it('takes the audit log’s old value over a snapshot that predates another admin’s change', () => {
      const timeline = new Timeline();
      const snapshot = snapshotOf(guildState());
      const members = () => timeline.mirror.state().roles.find((r) => r.id === MEMBERS)!;
      // After the snapshot, before the raid: another admin lets members embed links.
      timeline.act(
        -30_000,
        ADMIN,
        AuditLogEvent.RoleUpdate,
        MEMBERS,
        { ...on, type: 'role_update', role: { ...members(), permissions: '16384' } },
        [{ key: 'permissions', old_value: members().permissions, new_value: '16384' }],
      );
      const legitimate = timeline.mirror.state();
      grant(timeline);

      const { state } = composePreRaidState(timeline.input({ journal: [], snapshot }));

      expect(state).toEqual(legitimate);
    });
  });
});
