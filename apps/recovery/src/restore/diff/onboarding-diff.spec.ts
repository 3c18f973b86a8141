import {
  ALL_PERMISSIONS,
  type GuildState,
  type OnboardingPrompt,
  PERMISSION,
  type PlatformOnboarding,
  type PlatformWelcomeScreen,
} from '@lib/chat-platform';
import type { RestoreScope } from '@lib/contracts';
import { guildSettings, platformChannel, platformRole } from '../../sync/guild-state.fixture';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import {
  type BotStanding,
  computeRestoreDiff,
  estimateRestoreCalls,
  type IdReplacement,
  ROUTE,
  SKIP_REASON,
  SnapshotIdResolution,
} from '../restore-diff';

const GUILD = '1000';
const GAMERS = '2001';
const BOT_ROLE = '2002';
/** Seven text channels: an enabled onboarding needs them all as default channels. */
const CHANNELS = ['3001', '3002', '3003', '3004', '3005', '3006', '3007'];
const [RULES, EVENTS] = CHANNELS;
const EMOJI = '5001';

const BOT: BotStanding = {
  highestRolePosition: 2,
  permissions: ALL_PERMISSIONS,
  isOwner: false,
  userId: '900',
  roleIds: [BOT_ROLE],
};

function state(channels = CHANNELS, features = ['COMMUNITY']): GuildState {
  return {
    guild: guildSettings(GUILD, { features }),
    roles: [
      platformRole(GUILD, {
        name: '@everyone',
        position: 0,
        permissions: (PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES).toString(),
      }),
      platformRole(GAMERS, { name: 'gamers', position: 1 }),
      platformRole(BOT_ROLE, { name: 'bot', position: 2, managed: true }),
    ],
    channels: channels.map((id, position) => platformChannel(id, { name: `channel-${id}`, position })),
    permission_overrides: [],
  };
}

function screen(): PlatformWelcomeScreen {
  return {
    enabled: true,
    description: 'Welcome!',
    welcome_channels: [
      { channel_id: RULES, description: 'Read the rules', emoji_id: null, emoji_name: '📜' },
      { channel_id: EVENTS, description: 'What is on', emoji_id: EMOJI, emoji_name: 'wave' },
    ],
  };
}

function prompt(id: string, title: string, channelIds: string[] = [EVENTS]): OnboardingPrompt {
  return {
    id,
    type: 0,
    title,
    options: [
      {
        id: `${id}1`,
        title: 'Games',
        description: null,
        emoji_id: EMOJI,
        emoji_name: 'wave',
        emoji_animated: false,
        role_ids: [GAMERS],
        channel_ids: channelIds,
      },
    ],
    single_select: false,
    required: false,
    in_onboarding: true,
  };
}

function onboarding(): PlatformOnboarding {
  return {
    prompts: [prompt('6001', 'Why are you here?'), prompt('6002', 'What do you play?')],
    default_channel_ids: [...CHANNELS],
    enabled: true,
    mode: 0,
  };
}

function snapshot(parts: Partial<SnapshotPayload> = {}): SnapshotPayload {
  return {
    ...state(),
    version: 3,
    snapshot_at: '2026-01-01T00:00:00.000Z',
    emojis: [{ id: EMOJI, name: 'wave', animated: false, roles: [], image: 'a'.repeat(64) }],
    stickers: [],
    guild_images: {},
    welcome_screen: screen(),
    onboarding: onboarding(),
    ...parts,
  };
}

interface Case {
  target?: SnapshotPayload;
  live?: GuildState;
  /** Null: the bot could not read them. */
  flow?: { welcomeScreen: PlatformWelcomeScreen | null; onboarding: PlatformOnboarding } | null;
  emojis?: string[];
  scope?: RestoreScope[];
  replacements?: IdReplacement[];
  bot?: BotStanding;
}

function diff({
  target = snapshot(),
  live = state(),
  flow = { welcomeScreen: screen(), onboarding: onboarding() },
  emojis = [EMOJI],
  scope = ['onboarding'],
  replacements = [],
  bot = BOT,
}: Case) {
  const expressions = {
    emojis: emojis.map((id) => ({ id, name: 'wave', animated: false, roles: [], managed: false })),
    stickers: [],
    ...(flow && { welcomeFlow: flow }),
  };
  const ids = new SnapshotIdResolution(live, replacements, expressions);
  return computeRestoreDiff({ target, live, expressions, scope, ids, bot });
}

describe('the welcome screen and onboarding in a restore diff', () => {
  it('finds nothing to do when both are as the snapshot has them', () => {
    const result = diff({});
    expect(result).toMatchObject({
      welcome_screen_changes: [],
      onboarding_changes: [],
      onboarding_prompts_to_create: [],
      onboarding_prompts_to_update: [],
      onboarding_prompts_to_delete: [],
      skipped: [],
    });
    expect(estimateRestoreCalls(result).perRoute[ROUTE.onboarding]).toBeUndefined();
  });

  it('lists the fields and prompts to put back, the prompts matched by id', () => {
    const [why, what] = onboarding().prompts;
    const result = diff({
      flow: {
        welcomeScreen: { ...screen(), enabled: false, welcome_channels: [] },
        onboarding: {
          // Reordered, one renamed, one of the raider's, fewer default channels (in another order).
          prompts: [{ ...what, title: 'Raided' }, why, prompt('6009', 'Raider')],
          default_channel_ids: [...CHANNELS].reverse().slice(1),
          enabled: false,
          mode: 1,
        },
      },
    });
    expect(result.welcome_screen_changes).toEqual(['enabled', 'welcome_channels']);
    expect(result.onboarding_changes).toEqual(['default_channel_ids', 'enabled', 'mode']);
    expect(result.onboarding_prompts_to_create).toEqual([]);
    expect(
      result.onboarding_prompts_to_update!.map((update) => [update.target.id, update.changed_fields]),
    ).toEqual([
      ['6001', ['position']],
      ['6002', ['title', 'position']],
    ]);
    expect(result.onboarding_prompts_to_delete).toEqual([{ id: '6009', title: 'Raider', options: 1 }]);
    const calls = estimateRestoreCalls(result).perRoute;
    expect([calls[ROUTE.welcomeScreen], calls[ROUTE.onboarding]]).toEqual([1, 1]);
  });

  it('follows a channel and an emoji to the ids a restore recreated them under', () => {
    const moved = '3999';
    const newEmoji = '5999';
    const live = state([moved, ...CHANNELS.slice(1)]);
    const rename = (ids: string[]) => ids.map((id) => (id === RULES ? moved : id));
    const liveScreen = screen();
    liveScreen.welcome_channels = [
      { ...liveScreen.welcome_channels[0], channel_id: moved },
      { ...liveScreen.welcome_channels[1], emoji_id: newEmoji },
    ];
    const liveOnboarding = onboarding();
    liveOnboarding.default_channel_ids = rename(liveOnboarding.default_channel_ids);
    for (const option of liveOnboarding.prompts.flatMap((candidate) => candidate.options))
      option.emoji_id = newEmoji;
    const result = diff({
      live,
      emojis: [newEmoji],
      flow: { welcomeScreen: liveScreen, onboarding: liveOnboarding },
      replacements: [
        { kind: 'channel', original_id: RULES, replacement_id: moved },
        { kind: 'emoji', original_id: EMOJI, replacement_id: newEmoji },
      ],
    });
    expect(result).toMatchObject({
      welcome_screen_changes: [],
      onboarding_changes: [],
      onboarding_prompts_to_update: [],
      skipped: [],
    });
  });

  it('counts what the same restore makes as there, and leaves out with a reason what is gone', () => {
    const live = state(CHANNELS.filter((id) => id !== EVENTS));
    const flow = { welcomeScreen: null, onboarding: { ...onboarding(), prompts: [], enabled: false } };
    // With the channels and emojis scopes the missing channel and emoji are made first.
    const restored = diff({ live, flow, emojis: [], scope: ['channels', 'emojis', 'onboarding'] });
    expect(restored.skipped).toEqual([]);
    expect(restored.welcome_screen_changes).toEqual(['enabled', 'description', 'welcome_channels']);

    const alone = diff({ live, flow, emojis: [] });
    const reasons = alone.skipped.map((item) => [item.id, item.name, item.reason]);
    expect(reasons).toEqual([
      [EVENTS, 'welcome channel “What is on”: its channel', SKIP_REASON.referenceGone],
      [EVENTS, 'option “Games” of “Why are you here?”: a channel', SKIP_REASON.referenceGone],
      [EVENTS, 'option “Games” of “What do you play?”: a channel', SKIP_REASON.referenceGone],
      [EVENTS, 'onboarding: a default channel', SKIP_REASON.referenceGone],
      [EMOJI, 'option “Games” of “Why are you here?”: its emoji', SKIP_REASON.referenceGone],
      [EMOJI, 'option “Games” of “What do you play?”: its emoji', SKIP_REASON.referenceGone],
      ['onboarding', 'onboarding: enabled', SKIP_REASON.onboardingBelowRequirements],
    ]);
    // Six default channels left: put back disabled, as the onboarding is now (no change there).
    expect(alone.onboarding_changes).toEqual(['default_channel_ids']);
  });

  it('puts an onboarding back disabled where fewer than 5 of its channels let everyone chat', () => {
    const live = state();
    // Three of the seven default channels shut to @everyone: the platform would refuse it enabled.
    live.permission_overrides = CHANNELS.slice(0, 3).map((channel_id) => ({
      channel_id,
      id: GUILD,
      type: 'role' as const,
      allow: '0',
      deny: PERMISSION.SEND_MESSAGES.toString(),
    }));
    const flow = { welcomeScreen: screen(), onboarding: { ...onboarding(), enabled: false } };
    const result = diff({ live, flow });
    expect(result.skipped.map((item) => [item.id, item.reason])).toEqual([
      ['onboarding', SKIP_REASON.onboardingBelowRequirements],
    ]);
    expect(result.onboarding_changes).not.toContain('enabled');
    // With only two shut, five let everyone chat: it goes back enabled.
    live.permission_overrides = live.permission_overrides.slice(0, 2);
    expect(diff({ live, flow }).onboarding_changes).toContain('enabled');
  });

  it('skips the whole scope for a guild that is not a Community, a bot without the permissions, an old snapshot', () => {
    const whole = (result: ReturnType<typeof diff>) => result.skipped.map((item) => [item.id, item.reason]);
    expect(whole(diff({ live: state(CHANNELS, []) }))).toEqual([['onboarding', SKIP_REASON.notCommunity]]);
    const manager = { ...BOT, permissions: PERMISSION.MANAGE_GUILD };
    expect(whole(diff({ bot: manager }))).toEqual([['onboarding', SKIP_REASON.onboardingNotAllowed]]);
    const unread = diff({ flow: null });
    expect(whole(unread)).toEqual([['onboarding', SKIP_REASON.onboardingNotRead]]);
    const old = snapshot({ welcome_screen: undefined, onboarding: undefined });
    expect(whole(diff({ target: old }))).toEqual([['onboarding', SKIP_REASON.onboardingNotInSnapshot]]);
    expect(diff({ scope: ['roles'] }).onboarding_changes).toBeUndefined();
    // A snapshot that had neither, of a guild that is no Community server: nothing to do, no note.
    const none = snapshot({
      welcome_screen: null,
      onboarding: { prompts: [], default_channel_ids: [], enabled: false, mode: 0 },
    });
    expect(diff({ target: none, live: state(CHANNELS, []) }).skipped).toEqual([]);
  });
});
