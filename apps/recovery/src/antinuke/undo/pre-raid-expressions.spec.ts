import { AuditLogEvent } from 'discord-api-types/v10';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import type { JournalAuditEntry } from '../../sync/change-journal-entry';
import { guildSettings, guildState, MEMBERS, MODS, platformRole } from '../../sync/guild-state.fixture';
import { composePreRaidExpressions, preRaidRoleIcons } from './pre-raid-expressions';

const RAIDER = '900';
const digest = (c: string) => c.repeat(64);
const emoji = (id: string, name: string) => ({ id, name, animated: false, roles: [], managed: false });
const sticker = (id: string, name: string) => ({ id, name, description: null, tags: name, format_type: 1 });

let entries = 0;
function entry(
  action: number,
  target: string,
  changes: JournalAuditEntry['changes'] = [],
): JournalAuditEntry {
  return {
    entry_id: String(++entries),
    actor_id: RAIDER,
    action_type: action,
    target_id: target,
    changes,
    at: new Date(),
  };
}

/** Before the raid: emojis 1 and 2, sticker 5, an icon. */
const before: SnapshotPayload = {
  ...guildState(),
  guild: guildSettings('1', { icon: 'old-icon' }),
  version: 3,
  snapshot_at: '2026-11-29T00:00:00.000Z',
  emojis: [
    { ...emoji('1', 'party'), image: digest('a') },
    { ...emoji('2', 'wave'), image: digest('b') },
  ],
  stickers: [{ ...sticker('5', 'hello'), image: digest('c') }],
  guild_images: { icon: digest('d') },
};

describe(composePreRaidExpressions.name, () => {
  it('puts back what the raider deleted, renamed and replaced, and drops what they uploaded', () => {
    const composed = composePreRaidExpressions({
      // Now: emoji 1 gone, 2 renamed, 3 the raider's, 4 someone else's; the sticker gone; the icon replaced.
      guild: guildSettings('1', { icon: 'raider-icon' }),
      emojis: [emoji('2', 'nuked'), emoji('3', 'skull'), emoji('4', 'legit')],
      stickers: [],
      automodRules: [],
      snapshot: before,
      actorEntries: [
        entry(AuditLogEvent.EmojiDelete, '1'),
        entry(AuditLogEvent.EmojiUpdate, '2', [{ key: 'name', old_value: 'wave', new_value: 'nuked1' }]),
        entry(AuditLogEvent.EmojiUpdate, '2', [{ key: 'name', old_value: 'nuked1', new_value: 'nuked' }]),
        entry(AuditLogEvent.EmojiCreate, '3'),
        entry(AuditLogEvent.StickerDelete, '5'),
        entry(AuditLogEvent.GuildUpdate, '1', [
          { key: 'icon_hash', old_value: 'old-icon', new_value: 'raider-icon' },
        ]),
      ],
    });
    expect(composed.parts.emojis.map((item) => [item.id, item.name, item.image]).sort()).toEqual([
      ['1', 'party', digest('a')],
      ['2', 'wave', digest('b')],
      ['4', 'legit', null],
    ]);
    expect(composed.parts.stickers.map((item) => item.id)).toEqual(['5']);
    expect(composed.imageHashes).toEqual({ icon: 'old-icon' });
    expect(composed.parts.guild_images).toEqual({ icon: digest('d') });
    expect(composed.unknown).toEqual([]);
  });

  it('names what it cannot put back: a deletion or an image no snapshot from before the raid kept', () => {
    const composed = composePreRaidExpressions({
      guild: guildSettings('1', { banner: null }),
      emojis: [],
      stickers: [],
      automodRules: [],
      snapshot: null,
      actorEntries: [
        entry(AuditLogEvent.EmojiDelete, '1'),
        entry(AuditLogEvent.GuildUpdate, '1', [{ key: 'banner_hash', old_value: 'old-banner' }]),
      ],
    });
    expect(composed.unknown).toEqual([
      { object_type: 'emoji', object_id: '1' },
      { object_type: 'guild_image', object_id: 'banner' },
    ]);
    expect(composed.imageHashes).toEqual({});
  });

  it('puts back the AutoMod rules the raider deleted or switched off, and drops theirs', () => {
    const rule = (id: string, name: string, enabled = true) => ({
      id,
      name,
      event_type: 1,
      trigger_type: 1,
      trigger_metadata: { keyword_filter: [name] },
      actions: [{ type: 1, metadata: {} }],
      enabled,
      exempt_roles: [],
      exempt_channels: [],
    });
    const composed = composePreRaidExpressions({
      guild: guildSettings('1'),
      emojis: [],
      stickers: [],
      automodRules: [rule('20', 'links', false), rule('30', 'raider')],
      snapshot: { ...before, automod_rules: [rule('10', 'spam'), rule('20', 'links')] },
      actorEntries: [
        entry(AuditLogEvent.AutoModerationRuleDelete, '10'),
        entry(AuditLogEvent.AutoModerationRuleUpdate, '20', [
          { key: 'enabled', old_value: true, new_value: false },
        ]),
        entry(AuditLogEvent.AutoModerationRuleCreate, '30'),
      ],
    });
    expect(composed.parts.automod_rules!.map((item) => [item.id, item.enabled]).sort()).toEqual([
      ['10', true],
      ['20', true],
    ]);
  });

  describe('the welcome screen and onboarding', () => {
    const onboarding = (title: string, enabled: boolean) => ({
      prompts: [
        {
          id: '70',
          type: 0,
          title,
          options: [
            {
              id: '71',
              title: 'Games',
              description: null,
              emoji_id: null,
              emoji_name: '🎮',
              emoji_animated: false,
              role_ids: ['2'],
              channel_ids: ['3'],
            },
          ],
          single_select: false,
          required: false,
          in_onboarding: true,
        },
      ],
      default_channel_ids: ['3'],
      enabled,
      mode: 0,
    });
    const screen = (description: string, enabled: boolean) => ({
      enabled,
      description,
      welcome_channels: [{ channel_id: '3', description: 'Hi', emoji_id: null, emoji_name: null }],
    });
    const snapshot = {
      ...before,
      welcome_screen: screen('Welcome', true),
      onboarding: onboarding('Why are you here?', true),
    };
    const compose = (actorEntries: JournalAuditEntry[], withSnapshot = true) =>
      composePreRaidExpressions({
        guild: guildSettings('1'),
        emojis: [],
        stickers: [],
        automodRules: [],
        welcomeFlow: {
          welcome_screen: screen('Changed by an admin', false),
          onboarding: onboarding('Join the raid?', false),
        },
        snapshot: withSnapshot ? snapshot : null,
        actorEntries,
      });
    const welcomeToggled = entry(AuditLogEvent.GuildUpdate, '1', [
      { key: 'features', old_value: ['COMMUNITY', 'WELCOME_SCREEN_ENABLED'], new_value: ['COMMUNITY'] },
    ]);

    it('puts back the snapshot’s onboarding and welcome screen the raider changed', () => {
      const composed = compose([
        entry(AuditLogEvent.OnboardingPromptUpdate, '70', [
          { key: 'title', old_value: 'Why are you here?', new_value: 'Join the raid?' },
        ]),
        entry(AuditLogEvent.OnboardingUpdate, '1', [{ key: 'enabled', old_value: true, new_value: false }]),
        welcomeToggled,
      ]);
      expect(composed.parts.onboarding).toEqual(snapshot.onboarding);
      expect(composed.parts.welcome_screen).toEqual(snapshot.welcome_screen);
      expect(composed.unknown).toEqual([]);
    });

    it('leaves each as it is when the raider did not change it, and names what no snapshot kept', () => {
      // A guild update of another setting is not the welcome screen's.
      const other = entry(AuditLogEvent.GuildUpdate, '1', [{ key: 'name', old_value: 'a', new_value: 'b' }]);
      const untouched = compose([other]);
      expect(untouched.parts.onboarding!.prompts[0].title).toBe('Join the raid?');
      expect(untouched.parts.welcome_screen!.description).toBe('Changed by an admin');

      const unkept = compose([entry(AuditLogEvent.OnboardingPromptCreate, '72'), welcomeToggled], false);
      expect(unkept.parts.onboarding!.prompts[0].title).toBe('Join the raid?');
      expect(unkept.unknown).toEqual([
        { object_type: 'onboarding', object_id: 'onboarding' },
        { object_type: 'welcome_screen', object_id: 'welcome_screen' },
      ]);
    });
  });

  it('puts back the webhooks the raider deleted, renamed, moved or re-imaged, drops theirs, keeps the rest', () => {
    const hook = (id: string, name: string, channel_id: string, avatar: string | null = null) => ({
      id,
      type: 1,
      channel_id,
      name,
      avatar,
    });
    const composed = composePreRaidExpressions({
      guild: guildSettings('1'),
      emojis: [],
      stickers: [],
      automodRules: [],
      // Now: 10 gone, 20 renamed, moved and its avatar replaced, 30 the raider's, 40 someone else's.
      webhooks: [
        hook('20', 'pwned', '71', 'raider-hash'),
        hook('30', 'raider', '70'),
        hook('40', 'later', '70'),
      ],
      snapshot: {
        ...before,
        webhooks: [
          { id: '10', channel_id: '70', name: 'Feed', avatar: null, image: null },
          { id: '20', channel_id: '70', name: 'Builds', avatar: 'old-hash', image: digest('e') },
        ],
      },
      actorEntries: [
        entry(AuditLogEvent.WebhookDelete, '10'),
        entry(AuditLogEvent.WebhookUpdate, '20', [
          { key: 'name', old_value: 'Builds', new_value: 'pwned' },
          { key: 'channel_id', old_value: '70', new_value: '71' },
          { key: 'avatar_hash', old_value: 'old-hash', new_value: 'raider-hash' },
        ]),
        entry(AuditLogEvent.WebhookCreate, '30'),
      ],
    });
    expect(composed.parts.webhooks).toEqual([
      { id: '20', channel_id: '70', name: 'Builds', avatar: 'old-hash', image: digest('e') },
      { id: '40', channel_id: '70', name: 'later', avatar: null, image: null },
      { id: '10', channel_id: '70', name: 'Feed', avatar: null, image: null },
    ]);
    expect(composed.unknown).toEqual([]);
  });

  it('leaves the webhooks out when the bot could not read them', () => {
    const composed = composePreRaidExpressions({
      guild: guildSettings('1'),
      emojis: [],
      stickers: [],
      automodRules: [],
      snapshot: before,
      actorEntries: [entry(AuditLogEvent.WebhookDelete, '10')],
    });
    expect(composed.parts).not.toHaveProperty('webhooks');
  });
});

describe(preRaidRoleIcons.name, () => {
  it('keeps the snapshot’s image of each role whose pre-raid icon it had, and no other', () => {
    const snapshot: SnapshotPayload = {
      ...before,
      roles: [platformRole(MODS, { icon: 'mods-icon' }), platformRole(MEMBERS, { icon: 'members-icon' })],
      role_icons: { [MODS]: digest('e'), [MEMBERS]: digest('f') },
    };
    const roles = [
      // Composed back to the icon the snapshot holds (a deleted role, or one the raider changed).
      platformRole(MODS, { icon: 'mods-icon' }),
      // Changed by someone else after the snapshot: its image is not the snapshot's.
      platformRole(MEMBERS, { icon: 'newer-icon' }),
      platformRole('777', { icon: null }),
    ];
    expect(preRaidRoleIcons(roles, snapshot)).toEqual({ [MODS]: digest('e') });
    expect(preRaidRoleIcons(roles, null)).toEqual({});
  });
});
