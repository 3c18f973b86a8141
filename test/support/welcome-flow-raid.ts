import type { ChatPlatformClient, PlatformOnboarding, PlatformWelcomeScreen } from '@lib/chat-platform';
import type { GuildSpec } from '@lib/sandbox';
import type { DataSource } from 'typeorm';
import { readWelcomeFlow } from '../../apps/recovery/src/snapshots/welcome-flow.reader';
import type { RestoreHarness } from './restore-harness';
import { idMap, storedPayload } from './restore-scenario';

/** The roles, channels and emojis the welcome screen and onboarding name, and those two. */
export const WELCOME_FLOW_SCOPES = ['roles', 'channels', 'emojis', 'onboarding'];

/** Channels everyone may chat in, beside the guild's `general`: enabling onboarding needs seven. */
const CHAT_CHANNELS = ['intro', 'help', 'media', 'events', 'off-topic', 'memes'];
const DEFAULT_CHANNELS = ['general', ...CHAT_CHANNELS];

/**
 * A Community guild with a custom emoji, a welcome screen (one channel shown with that emoji) and
 * an enabled onboarding: seven default channels, a question whose options give a role and a
 * channel, and a dropdown.
 */
export function withWelcomeFlow(spec: GuildSpec): void {
  spec.features = [...(spec.features ?? []), 'COMMUNITY'];
  spec.channels = [...(spec.channels ?? []), ...CHAT_CHANNELS.map((name) => ({ name }))];
  if (!spec.emojis?.some((emoji) => emoji.name === 'wave'))
    spec.emojis = [...(spec.emojis ?? []), { name: 'wave' }];
  spec.setup = {
    ...spec.setup,
    welcomeScreen: {
      description: 'Welcome to the guild',
      channels: [
        { channel: 'rules', description: 'Read the rules', emoji_name: '📜' },
        { channel: 'intro', description: 'Say hello', emoji: 'wave' },
        { channel: 'events', description: 'What is on' },
      ],
    },
    onboarding: {
      enabled: true,
      mode: 0,
      defaultChannels: DEFAULT_CHANNELS,
      prompts: [
        {
          title: 'What brings you here?',
          required: true,
          options: [
            { title: 'Events', description: 'Come along', emoji_name: '🎉', channels: ['events'] },
            { title: 'Helping', roles: ['Moderator'], channels: ['help'] },
          ],
        },
        {
          title: 'Pick one',
          type: 1,
          single_select: true,
          options: [{ title: 'Member', roles: ['Member'] }],
        },
      ],
    },
  };
}

/** The demo guild's Community channels, where everyone may chat: enough to enable onboarding. */
const DEMO_DEFAULT_CHANNELS = [
  'general',
  'introductions',
  'media',
  'memes',
  'bot-commands',
  'events',
  'suggestions',
];

/**
 * The demo guild made a Community's, with a custom emoji, a welcome screen showing it, and an
 * enabled onboarding naming its roles and channels.
 */
export function withDemoWelcomeFlow(spec: GuildSpec): void {
  spec.features = [...(spec.features ?? []), 'COMMUNITY'];
  if (!spec.emojis?.some((emoji) => emoji.name === 'wave'))
    spec.emojis = [...(spec.emojis ?? []), { name: 'wave' }];
  spec.setup = {
    ...spec.setup,
    welcomeScreen: {
      description: 'Welcome!',
      channels: [
        { channel: 'rules', description: 'Read the rules', emoji_name: '📜' },
        { channel: 'introductions', description: 'Say hello', emoji: 'wave' },
      ],
    },
    onboarding: {
      enabled: true,
      defaultChannels: DEMO_DEFAULT_CHANNELS,
      prompts: [
        {
          title: 'What brings you here?',
          options: [
            { title: 'Events', emoji_name: '🎉', channels: ['events'], roles: ['Event Host'] },
            { title: 'Memes', channels: ['memes'] },
          ],
        },
        { title: 'Colour', type: 1, single_select: true, options: [{ title: 'VIP', roles: ['VIP'] }] },
      ],
    },
  };
}

/**
 * A raid on what new members are shown: the emoji and a channel the welcome screen and onboarding
 * name deleted, the welcome screen emptied and switched off, the onboarding replaced by the
 * raider's own question and switched off.
 */
export async function welcomeFlowRaid(raider: ChatPlatformClient, guildId: string): Promise<void> {
  const wave = (await raider.listEmojis(guildId)).find((emoji) => emoji.name === 'wave')!;
  await raider.deleteEmoji(guildId, wave.id);
  const { channels } = await raider.getGuildState(guildId);
  await raider.deleteChannel(channels.find((channel) => channel.name === 'events')!.id);
  await defaceWelcomeFlow(raider, guildId);
}

/** The welcome screen emptied and switched off, the onboarding replaced by the raider's and switched off. */
export async function defaceWelcomeFlow(raider: ChatPlatformClient, guildId: string): Promise<void> {
  await raider.modifyWelcomeScreen(guildId, { enabled: false, description: 'Gone', welcome_channels: [] });
  const { channels } = await raider.getGuildState(guildId);
  const general = channels.find((channel) => channel.name === 'general')!.id;
  await raider.modifyOnboarding(guildId, {
    prompts: [
      {
        id: '1200000000000000001',
        type: 0,
        title: 'Join the raid?',
        options: [
          {
            id: '1200000000000000002',
            title: 'Yes',
            description: null,
            emoji_id: null,
            emoji_name: null,
            emoji_animated: false,
            role_ids: [],
            channel_ids: [general],
          },
        ],
        single_select: false,
        required: false,
        in_onboarding: true,
      },
    ],
    default_channel_ids: [general],
    enabled: false,
    mode: 0,
  });
}

type Ids = (kind: 'role' | 'channel' | 'emoji', id: string) => string;

/** The welcome screen and onboarding as comparable values: ids followed by `ids`, sets sorted. */
export function comparableWelcomeFlow(
  flow: { welcome_screen?: PlatformWelcomeScreen | null; onboarding?: PlatformOnboarding },
  ids: Ids = (_kind, id) => id,
) {
  const emoji = (id: string | null) => (id === null ? null : ids('emoji', id));
  const all = (kind: 'role' | 'channel', list: string[]) => list.map((id) => ids(kind, id)).sort();
  const screen = flow.welcome_screen;
  return {
    welcome_screen: screen && {
      ...screen,
      welcome_channels: screen.welcome_channels.map((channel) => ({
        ...channel,
        channel_id: ids('channel', channel.channel_id),
        emoji_id: emoji(channel.emoji_id),
      })),
    },
    onboarding: flow.onboarding && {
      ...flow.onboarding,
      default_channel_ids: all('channel', flow.onboarding.default_channel_ids),
      prompts: flow.onboarding.prompts.map((prompt) => ({
        ...prompt,
        options: prompt.options.map((option) => ({
          ...option,
          emoji_id: emoji(option.emoji_id),
          role_ids: all('role', option.role_ids),
          channel_ids: all('channel', option.channel_ids),
        })),
      })),
    },
  };
}

/**
 * The guild's welcome screen and onboarding now, against the snapshot's, its channel, role and
 * emoji ids followed to those the restore made.
 */
export async function welcomeFlowRestored(
  harness: RestoreHarness,
  dataSource: DataSource,
  guildId: string,
  platformGuildId: string,
  snapshotId: string,
) {
  const snapshot = await storedPayload(dataSource, snapshotId);
  const now = await readWelcomeFlow(harness.reader, await harness.reader.getGuild(platformGuildId));
  if ('unreadable' in now) throw new Error(now.unreadable);
  const toLive = await idMap(dataSource, guildId);
  return {
    live: comparableWelcomeFlow(now),
    snapshot: comparableWelcomeFlow(snapshot, toLive),
    raw: snapshot,
  };
}

/** Seeds, registers and snapshots the Community guild, then raids what new members are shown. */
export async function welcomeFlowScenario(harness: RestoreHarness, raider: ChatPlatformClient) {
  const scenario = await harness.protectedGuild({ plan: 'PRO', adjustSpec: withWelcomeFlow });
  await welcomeFlowRaid(raider, scenario.seeded.guildId);
  return scenario;
}
