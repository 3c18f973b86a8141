import type { Schemas } from '../api/client';
import { expressionChanges, groupPreview } from './restore-diff';

type Preview = Schemas['RestorePreviewView'];

const channel = (id: string, name: string, type: number, parent: string | null, position: number) => ({
  id,
  name,
  type,
  parent_id: parent,
  position,
  topic: null,
  nsfw: false,
  rate_limit_per_user: 0,
  bitrate: null,
  user_limit: null,
});
const role = (
  id: string,
  name: string,
  position: number,
  color = '#e67e22',
  secondary: string | null = null,
) => ({
  id,
  name,
  color,
  secondary_color: secondary,
  tertiary_color: null,
  permissions: '0',
  hoist: false,
  mentionable: false,
  position,
  managed: false,
  unicode_emoji: null,
  icon: null as string | null,
});

function preview(parts: Partial<Preview>): Preview {
  return {
    roles_to_create: [],
    roles_to_update: [],
    roles_to_delete: [],
    channels_to_create: [],
    channels_to_update: [],
    channels_to_delete: [],
    overrides_to_apply: [],
    overrides_to_remove: [],
    guild_settings_diff: {},
    member_roles_to_restore: [],
    members_to_update: 0,
    members_absent: 0,
    bans_to_lift: [],
    skipped: [],
    clamped: [],
    estimated_duration: 'PT1S',
    diff_hash: 'sha256:00',
    ...parts,
  };
}

describe('the preview, grouped like the snapshot tree', () => {
  it('counts the members given roles back and the bans lifted as changes', () => {
    const grouped = groupPreview(
      preview({
        members_to_update: 4,
        member_roles_to_restore: [{ role_id: '1', role_name: 'Moderator', members: 4, sample: ['ann'] }],
        bans_to_lift: [{ user_id: '9', name: 'bob', reason: 'raid' }],
      }),
      null,
    );
    expect(grouped.counts).toMatchObject({ members: 4, bans: 1, total: 5 });
  });

  it('puts channels under their categories and counts every kind', () => {
    const grouped = groupPreview(
      preview({
        roles_to_create: [role('r1', 'Helper', 3, '#3498db'), role('r2', 'Moderator', 5)],
        roles_to_update: [
          {
            current: role('r3', 'Members', 1, '#000000'),
            target: role('r3', 'Member', 1, '#99aab5'),
            changed_fields: ['name', 'color'],
          },
        ],
        channels_to_create: [
          channel('c1', 'Staff', 4, null, 2),
          channel('c2', 'staff-chat', 0, 'c1', 0),
          channel('c3', 'rules', 0, null, 0),
        ],
        channels_to_update: [
          {
            current: channel('c4', 'raided', 0, 'c9', 1),
            target: channel('c4', 'general', 0, 'c9', 1),
            changed_fields: ['name'],
          },
        ],
        channels_to_delete: [{ id: 'c5', name: 'spam', type: 0 }],
        overrides_to_apply: [
          {
            channel_id: 'c2',
            channel_name: 'staff-chat',
            id: 'r2',
            type: 'role',
            target_name: 'Moderator',
            allow: '1024',
            deny: '0',
          },
        ],
        guild_settings_diff: {
          name: { current: 'Raided', target: 'Demo Guild' },
          rules_channel_id: { current: null, target: 'c3' },
        },
        skipped: [{ scope: 'roles', id: 'r9', name: 'Bots', reason: 'above the bot’s highest role' }],
      }),
      {
        version: 1,
        snapshot_at: '2026-05-01T00:00:00Z',
        guild: {} as Schemas['SnapshotPayload']['guild'],
        roles: [],
        channels: [channel('c9', 'Community', 4, null, 1)],
        permission_overrides: [],
      },
    );
    expect(grouped.counts).toEqual({
      roles: { create: 2, update: 1, delete: 0 },
      channels: { create: 3, update: 1, delete: 1 },
      overrides: { apply: 1, remove: 0 },
      settings: 2,
      members: 0,
      bans: 0,
      emojis: { create: 0, update: 0, delete: 0 },
      stickers: { create: 0, update: 0, delete: 0 },
      images: 0,
      automod: { create: 0, update: 0, delete: 0 },
      onboarding: { create: 0, update: 0, delete: 0 },
      webhooks: { create: 0, update: 0, delete: 0 },
      skipped: 1,
      total: 11,
    });
    expect(grouped.roles.map((change) => [change.kind, change.name])).toEqual([
      ['create', 'Moderator'],
      ['create', 'Helper'],
      ['update', 'Member'],
    ]);
    expect(grouped.roles[2].fields).toEqual([
      { field: 'name', before: 'Members', after: 'Member' },
      { field: 'color', before: '#000000', after: '#99aab5' },
    ]);
    expect(
      grouped.channels.map((group) => [
        group.name,
        group.change?.kind ?? null,
        group.channels.map((c) => c.name),
      ]),
    ).toEqual([
      ['Outside any category', null, ['rules', 'spam']],
      ['Community', null, ['general']],
      ['Staff', 'create', ['staff-chat']],
    ]);
    expect(grouped.overrides).toEqual([
      expect.objectContaining({ channelName: 'staff-chat', apply: [expect.objectContaining({ id: 'r2' })] }),
    ]);
    expect(grouped.settings).toEqual([
      { field: 'name', before: 'Raided', after: 'Demo Guild' },
      { field: 'rules_channel_id', before: '(none)', after: '#rules' },
    ]);
  });

  it('shows a change of a gradient’s secondary colour as a field change of its role', () => {
    const grouped = groupPreview(
      preview({
        roles_to_update: [
          {
            current: role('r1', 'Booster', 2, '#ff0000', '#00ff00'),
            target: role('r1', 'Booster', 2, '#ff0000', '#0000ff'),
            changed_fields: ['secondary_color'],
          },
        ],
      }),
    );
    expect(grouped.roles).toEqual([
      expect.objectContaining({
        kind: 'update',
        name: 'Booster',
        color: '#ff0000',
        secondaryColor: '#0000ff',
        fields: [{ field: 'secondary_color', before: '#00ff00', after: '#0000ff' }],
        notes: [],
      }),
    ]);
  });

  it('shows a role’s icon put back or removed as its images, not the platform’s hashes', () => {
    const grouped = groupPreview(
      preview({
        roles_to_update: [
          {
            current: { ...role('r1', 'Booster', 2), icon: 'raider-hash' },
            target: { ...role('r1', 'Booster', 2), icon: 'kept-hash' },
            changed_fields: ['icon'],
          },
          {
            current: { ...role('r2', 'Member', 1), icon: 'raider-hash' },
            target: role('r2', 'Member', 1),
            changed_fields: ['icon'],
          },
        ],
      }),
    );
    expect(grouped.roles.map((change) => change.fields)).toEqual([
      [{ field: 'icon', before: 'another image', after: 'the snapshot’s image' }],
      [{ field: 'icon', before: 'another image', after: '(none)' }],
    ]);
  });

  it('notes on its role or channel a value restored within the live guild’s limits', () => {
    const voice = { ...channel('c1', 'lounge', 2, null, 0), bitrate: 96000, user_limit: 0 };
    const grouped = groupPreview(
      preview({
        roles_to_create: [role('r1', 'Booster', 2, '#ff0000')],
        channels_to_create: [voice],
        clamped: [
          {
            scope: 'channels',
            id: 'c1',
            name: 'lounge',
            field: 'bitrate',
            snapshot_value: 384000,
            restored_value: 96000,
            reason: 'the guild’s boost level (0) allows at most 96 kbps',
          },
          {
            scope: 'roles',
            id: 'r1',
            name: 'Booster',
            field: 'secondary_color',
            snapshot_value: '#0000ff',
            restored_value: null,
            reason:
              'the guild lacks the ENHANCED_ROLE_COLORS feature: the role keeps its primary colour only',
          },
        ],
      }),
    );
    expect(grouped.channels[0].channels[0].notes).toEqual([
      'bitrate: 384000 in the snapshot, restored as 96000 (the guild’s boost level (0) allows at most 96 kbps)',
    ]);
    expect(grouped.roles[0].notes).toEqual([
      'secondary color: #0000ff in the snapshot, restored as (none) (the guild lacks the ENHANCED_ROLE_COLORS feature: the role keeps its primary colour only)',
    ]);
  });

  it('shows a forum’s tags, reaction and order in words', () => {
    const tag = (name: string, emoji_name: string | null, moderated = false) => ({
      id: name,
      name,
      moderated,
      emoji_id: null,
      emoji_name,
    });
    const forum = { ...channel('c1', 'suggestions', 15, null, 0), default_forum_layout: 0 as const };
    const grouped = groupPreview(
      preview({
        channels_to_update: [
          {
            current: { ...forum, available_tags: [tag('raided', null)], default_reaction_emoji: null },
            target: {
              ...forum,
              available_tags: [tag('bug', '🐛'), tag('done', null, true)],
              default_reaction_emoji: { emoji_id: '42', emoji_name: null },
              default_sort_order: 1,
            },
            changed_fields: ['available_tags', 'default_reaction_emoji', 'default_sort_order'],
          },
        ],
      }),
    );
    expect(grouped.channels[0].channels[0].fields).toEqual([
      { field: 'available_tags', before: 'raided', after: '🐛 bug, done (moderated)' },
      { field: 'default_reaction_emoji', before: '(none)', after: 'a custom emoji' },
      { field: 'default_sort_order', before: '(none)', after: 'creation date' },
    ]);
  });

  it('counts nothing when the guild equals the snapshot', () => {
    expect(groupPreview(preview({})).counts.total).toBe(0);
  });
});

describe(expressionChanges.name, () => {
  it('lists emojis, stickers and server images by kind of change, and nothing without their scopes', () => {
    const base = {
      emojis_to_create: [{ id: 'e1', name: 'party', animated: true, roles: [] }],
      emojis_to_update: [
        {
          current: { id: 'e2', name: 'nuked', animated: false, roles: [] },
          target: { id: 'e2', name: 'wave', animated: false, roles: [] },
          changed_fields: ['name'],
        },
      ],
      emojis_to_delete: [{ id: 'e3', name: 'skull', animated: false, roles: [] }],
      guild_images_to_set: [
        { slot: 'icon' as const, current: 'abc', target: 'def' },
        { slot: 'banner' as const, current: 'abc', target: null },
      ],
    };
    const changes = expressionChanges(base as never);
    expect(changes.emojis.map((change) => [change.kind, change.name, change.detail])).toEqual([
      ['create', 'party', 'animated'],
      ['update', 'wave', 'changes name'],
      ['delete', 'skull', 'not in the snapshot'],
    ]);
    expect(changes.stickers).toEqual([]);
    expect(changes.images.map((change) => [change.kind, change.name])).toEqual([
      ['update', 'Server icon'],
      ['delete', 'Banner'],
    ]);
    const webhooks = expressionChanges({
      webhooks_to_create: [{ id: 'w1', name: 'Feed', channel_id: '1', image: null }],
      webhooks_to_update: [
        {
          current: { id: 'w2', name: 'pwned', channel_id: '2', image: null },
          target: { id: 'w2', name: 'Builds', channel_id: '1', image: null },
          changed_fields: ['name', 'channel_id'],
        },
      ],
      webhooks_to_delete: [{ id: 'w3', name: 'raider', channel_id: '1', image: null }],
    } as never).webhooks;
    expect(webhooks.map((change) => [change.kind, change.name, change.detail])).toEqual([
      ['create', 'Feed', 'made anew: it gets a new address'],
      ['update', 'Builds', 'changes name, channel'],
      ['delete', 'raider', 'not in the snapshot'],
    ]);
    expect(expressionChanges({} as never)).toEqual({
      emojis: [],
      stickers: [],
      images: [],
      automod: [],
      onboarding: [],
      webhooks: [],
    });
  });

  it('lists the welcome screen and onboarding settings as one update each, then the questions', () => {
    const prompt = (id: string, title: string) => ({ id, title, options: 2 });
    const changes = expressionChanges({
      welcome_screen_changes: ['enabled', 'welcome_channels'],
      onboarding_changes: [],
      onboarding_prompts_to_create: [prompt('p1', 'Why are you here?')],
      onboarding_prompts_to_update: [
        { current: prompt('p2', 'Raided'), target: prompt('p2', 'Games'), changed_fields: ['title'] },
      ],
      onboarding_prompts_to_delete: [prompt('p3', 'Join the raid?')],
    } as never);
    expect(changes.onboarding.map((change) => [change.kind, change.name, change.detail])).toEqual([
      ['update', 'Welcome screen', 'changes enabled, welcome_channels'],
      ['create', 'Question “Why are you here?”', 'put back'],
      ['update', 'Question “Games”', 'changes title'],
      ['delete', 'Question “Join the raid?”', 'not in the snapshot'],
    ]);
  });
});
