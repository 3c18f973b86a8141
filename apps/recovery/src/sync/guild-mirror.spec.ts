import type { GuildEvent } from './guild-events';
import { GuildMirror } from './guild-mirror';
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
} from './guild-state.fixture';

const on = { platformGuildId: GUILD };

describe(GuildMirror.name, () => {
  it('reads back the state it was seeded with', () => {
    expect(new GuildMirror(guildState()).state()).toEqual(guildState());
  });

  it('follows channel creates and updates, with their overrides, in position order', () => {
    const sut = new GuildMirror(guildState());
    const news = channel('100000000000000024', 'news', 0, { parent_id: CATEGORY });
    sut.apply({ ...on, type: 'channel_create', channel: news, overrides: [] });
    sut.apply({
      ...on,
      type: 'channel_update',
      channel: { ...guildState().channels[2], topic: 'read me' },
      overrides: [{ channel_id: RULES, id: MEMBERS, type: 'role', allow: '0', deny: '1024' }],
    });

    const state = sut.state();
    expect(state.channels.map((c) => c.name)).toEqual(['text', 'news', 'general', 'rules']);
    expect(state.channels.find((c) => c.id === RULES)?.topic).toBe('read me');
    expect(state.permission_overrides).toEqual([
      { channel_id: RULES, id: MEMBERS, type: 'role', allow: '0', deny: '1024' },
    ]);
  });

  it('deletes a category as the platform does: its channels stay without a parent', () => {
    const sut = new GuildMirror(guildState());
    sut.apply({ ...on, type: 'channel_delete', channelId: CATEGORY });
    sut.apply({ ...on, type: 'channel_delete', channelId: RULES });

    const state = sut.state();
    expect(state.channels).toEqual([{ ...guildState().channels[1], parent_id: null }]);
    expect(state.permission_overrides).toEqual([]);
    expect(state.guild.rules_channel_id).toBeNull();
    expect(state.guild.system_channel_id).toBe(GENERAL);
  });

  it('follows roles and settings; a deleted role’s overrides go with it', () => {
    const sut = new GuildMirror(guildState());
    sut.apply({ ...on, type: 'role_create', role: role('100000000000000013', 'new', 3) });
    sut.apply({ ...on, type: 'role_update', role: { ...role(MEMBERS, 'members', 1), color: 0xff0000 } });
    sut.apply({ ...on, type: 'role_delete', roleId: MODS });
    sut.apply({ ...on, type: 'guild_settings_update', settings: { ...guildState().guild, name: 'Renamed' } });

    const state = sut.state();
    expect(state.roles.map((r) => [r.name, r.color])).toEqual([
      ['@everyone', 0],
      ['members', 0xff0000],
      ['new', 0],
    ]);
    expect(state.permission_overrides.map((o) => o.id)).toEqual([GUILD]);
    expect(state.guild.name).toBe('Renamed');
  });

  it('is unchanged by an event applied twice and by events about members', () => {
    const sut = new GuildMirror(guildState());
    const events: GuildEvent[] = [
      { ...on, type: 'role_delete', roleId: MODS },
      { ...on, type: 'role_delete', roleId: MODS },
      { ...on, type: 'member_ban', userId: '300000000000000001' },
      { ...on, type: 'member_remove', userId: '300000000000000001' },
    ];
    for (const event of events) sut.apply(event);

    const once = new GuildMirror(guildState());
    once.apply(events[0]);
    expect(sut.state()).toEqual(once.state());
  });
});

describe('GuildMirror.beforeImage', () => {
  const state = guildState();

  it('keeps a deleted channel with its overrides, the channels in it and the settings naming it', () => {
    const sut = new GuildMirror(state);
    expect(sut.beforeImage({ ...on, type: 'channel_delete', channelId: CATEGORY })).toEqual({
      object_type: 'channel',
      object_id: CATEGORY,
      change: 'delete',
      before: { channel: state.channels[0], overrides: [], children: [GENERAL, RULES] },
    });
    expect(sut.beforeImage({ ...on, type: 'channel_delete', channelId: RULES })).toEqual({
      object_type: 'channel',
      object_id: RULES,
      change: 'delete',
      before: {
        channel: state.channels[2],
        overrides: state.permission_overrides,
        settings: ['rules_channel_id'],
      },
    });
  });

  it('keeps a role with the overrides naming it, and the settings before an update', () => {
    const sut = new GuildMirror(state);
    expect(sut.beforeImage({ ...on, type: 'role_update', role: { ...state.roles[2], name: 'x' } })).toEqual({
      object_type: 'role',
      object_id: MODS,
      change: 'update',
      before: { role: state.roles[2], overrides: [state.permission_overrides[1]] },
    });
    expect(
      sut.beforeImage({ ...on, type: 'guild_settings_update', settings: { ...state.guild, name: 'x' } }),
    ).toEqual({ object_type: 'settings', object_id: GUILD, change: 'update', before: state.guild });
  });

  it('records a creation without a before, and nothing for what it never held or does not mirror', () => {
    const sut = new GuildMirror(state);
    const news = channel('100000000000000024', 'news', 3);
    expect(sut.beforeImage({ ...on, type: 'channel_create', channel: news, overrides: [] })).toEqual({
      object_type: 'channel',
      object_id: news.id,
      change: 'create',
    });
    expect(
      sut.beforeImage({ ...on, type: 'role_create', role: role('100000000000000013', 'new', 3) }),
    ).toEqual({
      object_type: 'role',
      object_id: '100000000000000013',
      change: 'create',
    });
    expect(sut.beforeImage({ ...on, type: 'role_delete', roleId: '100000000000000013' })).toBeNull();
    expect(sut.beforeImage({ ...on, type: 'member_ban', userId: '1' })).toBeNull();
  });
});
