import type { GuildState } from '@lib/chat-platform';
import { toSourceEvent } from './gateway-dispatch.mapper';
import { GENERAL, GUILD, guildState, MODS, RULES } from './guild-state.fixture';

/** The guild as the gateway sends it: the REST guild object plus its channels with their overrides. */
function wireGuild(state: GuildState) {
  return {
    ...state.guild,
    roles: state.roles,
    // The wire order is not the position order; the mapping sorts as a REST read does.
    channels: [...state.channels].reverse().map((channel) => ({
      ...channel,
      permission_overwrites: state.permission_overrides
        .filter((override) => override.channel_id === channel.id)
        .map(({ id, type, allow, deny }) => ({ id, type: type === 'role' ? 0 : 1, allow, deny })),
    })),
    threads: [],
    members: [],
    unavailable: false,
  };
}

const dispatch = (t: string, d: unknown) => ({ op: 0, s: 7, t, d });

describe(toSourceEvent.name, () => {
  it('reads GUILD_CREATE as the whole guild, in the shapes and order of a REST read', () => {
    const state = guildState();
    expect(toSourceEvent(dispatch('GUILD_CREATE', wireGuild(state)))).toEqual({
      type: 'guild_available',
      platformGuildId: GUILD,
      state,
    });
  });

  it('passes over a guild announced as unavailable (an outage), and reports one gone', () => {
    expect(toSourceEvent(dispatch('GUILD_CREATE', { id: GUILD, unavailable: true }))).toBeNull();
    expect(toSourceEvent(dispatch('GUILD_DELETE', { id: GUILD, unavailable: true }))).toEqual({
      type: 'guild_unavailable',
      platformGuildId: GUILD,
      removed: false,
    });
    expect(toSourceEvent(dispatch('GUILD_DELETE', { id: GUILD }))).toMatchObject({ removed: true });
  });

  it('reads a channel change with all of its overrides, and a delete by id', () => {
    const rules = wireGuild(guildState()).channels.find((channel) => channel.id === RULES)!;
    expect(toSourceEvent(dispatch('CHANNEL_UPDATE', { ...rules, guild_id: GUILD }))).toEqual({
      type: 'channel_update',
      platformGuildId: GUILD,
      channel: guildState().channels.find((channel) => channel.id === RULES),
      overrides: guildState().permission_overrides,
    });
    expect(toSourceEvent(dispatch('CHANNEL_DELETE', { ...rules, guild_id: GUILD }))).toEqual({
      type: 'channel_delete',
      platformGuildId: GUILD,
      channelId: RULES,
    });
  });

  it('passes over direct-message channels, which belong to no guild', () => {
    expect(toSourceEvent(dispatch('CHANNEL_CREATE', { id: GENERAL, type: 1, recipients: [] }))).toBeNull();
  });

  it('reads role changes, settings, bans, members changing or leaving and the bot’s identity', () => {
    const mods = guildState().roles.find((role) => role.id === MODS)!;
    expect(toSourceEvent(dispatch('GUILD_ROLE_UPDATE', { guild_id: GUILD, role: mods }))).toEqual({
      type: 'role_update',
      platformGuildId: GUILD,
      role: mods,
    });
    expect(toSourceEvent(dispatch('GUILD_ROLE_DELETE', { guild_id: GUILD, role_id: MODS }))).toEqual({
      type: 'role_delete',
      platformGuildId: GUILD,
      roleId: MODS,
    });
    expect(toSourceEvent(dispatch('GUILD_UPDATE', { ...wireGuild(guildState()), name: 'Renamed' }))).toEqual({
      type: 'guild_settings_update',
      platformGuildId: GUILD,
      settings: { ...guildState().guild, name: 'Renamed' },
    });
    const user = { id: '300000000000000001', username: 'someone' };
    expect(toSourceEvent(dispatch('GUILD_BAN_ADD', { guild_id: GUILD, user }))).toEqual({
      type: 'member_ban',
      platformGuildId: GUILD,
      userId: user.id,
    });
    expect(toSourceEvent(dispatch('GUILD_MEMBER_REMOVE', { guild_id: GUILD, user }))).toEqual({
      type: 'member_remove',
      platformGuildId: GUILD,
      userId: user.id,
    });
    const member = { guild_id: GUILD, user, roles: [MODS], communication_disabled_until: null };
    expect(toSourceEvent(dispatch('GUILD_MEMBER_UPDATE', member))).toEqual({
      type: 'member_update',
      platformGuildId: GUILD,
      userId: user.id,
    });
    expect(toSourceEvent(dispatch('READY', { v: 10, user: { id: '400000000000000001' } }))).toEqual({
      type: 'ready',
      botUserId: '400000000000000001',
    });
  });

  it('reads an audit-log entry with its actor and the reason the actor gave', () => {
    const entry = {
      id: '500000000000000001',
      guild_id: GUILD,
      user_id: '300000000000000001',
      action_type: 12,
      target_id: GENERAL,
      reason: 'cleaning up',
      changes: [{ key: 'name', old_value: 'general' }],
    };
    expect(toSourceEvent(dispatch('GUILD_AUDIT_LOG_ENTRY_CREATE', entry))).toEqual({
      type: 'audit_log_entry',
      platformGuildId: GUILD,
      entry: {
        id: entry.id,
        actorId: entry.user_id,
        actionType: 12,
        targetId: GENERAL,
        reason: 'cleaning up',
        changes: [{ key: 'name', old_value: 'general' }],
      },
    });
    const { reason: _reason, changes: _changes, ...bare } = entry;
    expect(toSourceEvent(dispatch('GUILD_AUDIT_LOG_ENTRY_CREATE', bare))).toMatchObject({
      entry: { reason: null, changes: [] },
    });
  });

  it('keeps an entry’s options (a prune’s members_removed)', () => {
    const prune = {
      id: '500000000000000002',
      guild_id: GUILD,
      user_id: '300000000000000001',
      action_type: 21,
      target_id: null,
      options: { delete_member_days: '7', members_removed: '12' },
    };
    expect(toSourceEvent(dispatch('GUILD_AUDIT_LOG_ENTRY_CREATE', prune))).toMatchObject({
      entry: { actionType: 21, targetId: null, options: { delete_member_days: '7', members_removed: '12' } },
    });
  });

  it('passes over what live sync does not follow, and what is not a dispatch', () => {
    expect(toSourceEvent(dispatch('MESSAGE_CREATE', { id: '1', content: 'hi' }))).toBeNull();
    expect(toSourceEvent({ op: 11 })).toBeNull();
    expect(toSourceEvent(null)).toBeNull();
    expect(toSourceEvent('GUILD_CREATE')).toBeNull();
  });
});
