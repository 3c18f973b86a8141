import {
  COMMUNITY_FEATURE,
  computeChannelPermissions,
  type GuildState,
  hasPermission,
  type OnboardingPrompt,
  PERMISSION,
  type PlatformOnboarding,
  type PlatformWelcomeScreen,
} from '@lib/chat-platform';
import { isDeepStrictEqual } from 'node:util';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import {
  type DiffInput,
  type OnboardingPromptItem,
  type RestoreDiff,
  SKIP_REASON,
  type SkippedItem,
  type UpdateItem,
} from './diff-model';
import type { LiveLookup } from './live-lookup';
import { compareIds } from './ordering';

type OnboardingSection = Required<
  Pick<
    RestoreDiff,
    | 'welcome_screen_changes'
    | 'onboarding_changes'
    | 'onboarding_prompts_to_create'
    | 'onboarding_prompts_to_update'
    | 'onboarding_prompts_to_delete'
  >
> & { skipped: SkippedItem[] };

/** The welcome screen's fields a restore compares and sets back. */
export const RESTORED_WELCOME_SCREEN_FIELDS = ['enabled', 'description', 'welcome_channels'] as const;
/** The onboarding's own fields a restore compares and sets back (its prompts are compared one by one). */
export const RESTORED_ONBOARDING_FIELDS = ['default_channel_ids', 'enabled', 'mode'] as const;
/** A prompt's fields a restore compares and sets back (`position`: its place among the prompts). */
export const RESTORED_PROMPT_FIELDS = [
  'title',
  'options',
  'single_select',
  'required',
  'in_onboarding',
  'type',
] as const;

/** Default channels enabling an onboarding needs (resources/guild, "Onboarding Mode" and constraints). */
export const MIN_ONBOARDING_DEFAULT_CHANNELS = 7;
/** Of those, how many must let @everyone see the channel and send messages in it. */
export const MIN_ONBOARDING_CHAT_CHANNELS = 5;

/**
 * Whether @everyone may see and chat in a channel named by its live id, or by its snapshot id when
 * the restore is about to make it (with the snapshot's overwrites, as a channel is created). The
 * guild-level bits are the live @everyone role's: by the time the step writes the onboarding, the
 * roles, channels and overwrites of the restore are there, so the step's answer is exact; a
 * preview's is the guild's now.
 */
export function everyoneChatsIn(live: GuildState, target: GuildState): (channelId: string) => boolean {
  const everyone = live.roles.find((role) => role.id === live.guild.id);
  const guildPermissions = BigInt(everyone?.permissions ?? '0');
  const chat = PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES;
  return (channelId) => {
    const isLive = live.channels.some((channel) => channel.id === channelId);
    const state = isLive ? live : target;
    const bits = computeChannelPermissions({
      guildPermissions,
      everyoneId: state.guild.id,
      userId: '',
      roleIds: [],
      overrides: state.permission_overrides.filter((override) => override.channel_id === channelId),
    });
    return (bits & chat) === chat;
  };
}

/** The ids a restore is about to make, by their snapshot ids: they count as there. */
export interface PendingReferences {
  roles: ReadonlySet<string>;
  channels: ReadonlySet<string>;
  emojis: ReadonlySet<string>;
}

/** The welcome screen and onboarding a restore writes: the snapshot's, in the live guild's ids. */
export interface LiveWelcomeFlow {
  /** Null: neither the snapshot nor the guild has one, so there is nothing to write. */
  welcomeScreen: PlatformWelcomeScreen | null;
  onboarding: PlatformOnboarding;
  /** References to what is gone and not restored, left out (the platform refuses unknown ids). */
  dropped: SkippedItem[];
}

/** What a guild that never set up its welcome screen shows: nothing. */
const NO_WELCOME_SCREEN: PlatformWelcomeScreen = { enabled: false, description: null, welcome_channels: [] };

/**
 * The snapshot's welcome screen and onboarding as the live guild would take them: every channel,
 * role and custom emoji they name as its live id (or the snapshot's, for one the restore makes:
 * `pending`). A reference to something neither live nor made is left out and listed in `dropped`:
 * a welcome channel whose channel is gone goes whole, an emoji that is gone leaves its entry
 * without one. An onboarding left with fewer default channels than enabling it needs (7, 5 of them
 * where @everyone may chat) is put back
 * disabled (the platform would refuse it), and listed too.
 */
export function liveWelcomeFlow(
  target: Pick<SnapshotPayload, 'welcome_screen' | 'onboarding'> & { onboarding: PlatformOnboarding },
  lookup: LiveLookup,
  resolveEmoji: (id: string) => string | undefined,
  pending: PendingReferences,
  liveScreen: PlatformWelcomeScreen | null,
  everyoneChats: (channelId: string) => boolean,
): LiveWelcomeFlow {
  const dropped: SkippedItem[] = [];
  const drop = (id: string, name: string) =>
    dropped.push({ scope: 'onboarding', id, name, reason: SKIP_REASON.referenceGone });
  const channel = (id: string) => lookup.channel(id)?.id ?? (pending.channels.has(id) ? id : undefined);
  const role = (id: string) => lookup.role(id)?.id ?? (pending.roles.has(id) ? id : undefined);
  const emoji = (id: string) => resolveEmoji(id) ?? (pending.emojis.has(id) ? id : undefined);
  const mapIds = (ids: string[], resolve: (id: string) => string | undefined, name: string) =>
    ids.flatMap((id) => {
      const live = resolve(id);
      if (live === undefined) drop(id, name);
      return live ?? [];
    });

  let welcomeScreen: PlatformWelcomeScreen | null = null;
  const screen = target.welcome_screen ?? (liveScreen ? NO_WELCOME_SCREEN : null);
  if (screen) {
    welcomeScreen = {
      enabled: screen.enabled,
      description: screen.description,
      welcome_channels: screen.welcome_channels.flatMap((entry) => {
        const name = `welcome channel “${entry.description}”`;
        const channelId = channel(entry.channel_id);
        if (channelId === undefined) {
          drop(entry.channel_id, `${name}: its channel`);
          return [];
        }
        if (entry.emoji_id === null) return [{ ...entry, channel_id: channelId }];
        const emojiId = emoji(entry.emoji_id);
        if (emojiId === undefined) drop(entry.emoji_id, `${name}: its emoji`);
        return [
          {
            ...entry,
            channel_id: channelId,
            emoji_id: emojiId ?? null,
            emoji_name: emojiId === undefined ? null : entry.emoji_name,
          },
        ];
      }),
    };
  }

  const source = target.onboarding;
  const prompts: OnboardingPrompt[] = source.prompts.map((prompt) => ({
    ...prompt,
    options: prompt.options.map((option) => {
      const name = `option “${option.title}” of “${prompt.title}”`;
      const emojiId = option.emoji_id === null ? null : (emoji(option.emoji_id) ?? null);
      if (option.emoji_id !== null && emojiId === null) drop(option.emoji_id, `${name}: its emoji`);
      return {
        ...option,
        emoji_id: emojiId,
        emoji_name: option.emoji_id !== null && emojiId === null ? null : option.emoji_name,
        emoji_animated: emojiId === null ? false : option.emoji_animated,
        role_ids: mapIds(option.role_ids, role, `${name}: a role`),
        channel_ids: mapIds(option.channel_ids, channel, `${name}: a channel`),
      };
    }),
  }));
  const onboarding: PlatformOnboarding = {
    prompts,
    default_channel_ids: mapIds(source.default_channel_ids, channel, 'onboarding: a default channel'),
    enabled: source.enabled,
    mode: source.mode,
  };
  const counted = countedChannels(onboarding);
  if (
    onboarding.enabled &&
    (counted.length < MIN_ONBOARDING_DEFAULT_CHANNELS ||
      counted.filter(everyoneChats).length < MIN_ONBOARDING_CHAT_CHANNELS)
  ) {
    onboarding.enabled = false;
    dropped.push({
      scope: 'onboarding',
      id: 'onboarding',
      name: 'onboarding: enabled',
      reason: SKIP_REASON.onboardingBelowRequirements,
    });
  }
  return { welcomeScreen, onboarding, dropped };
}

/**
 * The channels the platform counts toward an enabled onboarding's requirements: its default
 * channels, and in advanced mode (1) those of the options of prompts shown in onboarding.
 */
function countedChannels(onboarding: PlatformOnboarding): string[] {
  const ids = new Set(onboarding.default_channel_ids);
  if (onboarding.mode === 1) {
    for (const prompt of onboarding.prompts.filter((candidate) => candidate.in_onboarding)) {
      for (const option of prompt.options) for (const id of option.channel_ids) ids.add(id);
    }
  }
  return [...ids];
}

function promptItem(prompt: OnboardingPrompt): OnboardingPromptItem {
  return { id: prompt.id, title: prompt.title, options: prompt.options.length };
}

const sortedIds = (ids: readonly string[]) => [...ids].sort(compareIds);

/** A field as compared: lists of ids are sets to the platform, so their order says nothing. */
function comparable(field: string, value: unknown): unknown {
  if (field === 'default_channel_ids') return sortedIds(value as string[]);
  if (field === 'options') {
    return (value as OnboardingPrompt['options']).map((option) => ({
      ...option,
      role_ids: sortedIds(option.role_ids),
      channel_ids: sortedIds(option.channel_ids),
    }));
  }
  return value;
}

function changedFields<T extends object>(
  current: T,
  target: T,
  fields: readonly (keyof T & string)[],
): string[] {
  return fields.filter(
    (field) => !isDeepStrictEqual(comparable(field, current[field]), comparable(field, target[field])),
  );
}

/**
 * The snapshot's welcome screen and onboarding against the live guild's: the fields of each that
 * differ, and the prompts (matched by id, which a restore keeps) to make, set back and remove.
 * Both are written whole (a PATCH and a PUT of the whole object), so a restore that runs again
 * writes the same and makes nothing twice. References are followed to where the restore recreated
 * them; those to what is gone are left out and listed in `skipped`.
 */
export function diffWelcomeFlow(
  input: DiffInput,
  lookup: LiveLookup,
  pending: PendingReferences,
): OnboardingSection {
  const section: OnboardingSection = {
    welcome_screen_changes: [],
    onboarding_changes: [],
    onboarding_prompts_to_create: [],
    onboarding_prompts_to_update: [],
    onboarding_prompts_to_delete: [],
    skipped: [],
  };
  const whole = (reason: string) => ({
    ...section,
    skipped: [{ scope: 'onboarding' as const, id: 'onboarding', name: 'onboarding', reason }],
  });
  const { welcome_screen: screen, onboarding } = input.target;
  if (screen === undefined || onboarding === undefined) return whole(SKIP_REASON.onboardingNotInSnapshot);
  if (!input.live.guild.features.includes(COMMUNITY_FEATURE)) {
    // Nothing to miss where the snapshot had neither (e.g. it was not a Community server either).
    const had =
      (screen !== null &&
        (screen.enabled || screen.description !== null || screen.welcome_channels.length > 0)) ||
      onboarding.enabled ||
      onboarding.prompts.length > 0 ||
      onboarding.default_channel_ids.length > 0;
    return had ? whole(SKIP_REASON.notCommunity) : section;
  }
  const live = input.expressions?.welcomeFlow;
  const permissions = input.bot.permissions;
  if (
    !hasPermission(permissions, PERMISSION.MANAGE_GUILD) ||
    !hasPermission(permissions, PERMISSION.MANAGE_ROLES)
  )
    return whole(SKIP_REASON.onboardingNotAllowed);
  if (!live) return whole(SKIP_REASON.onboardingNotRead);
  const wanted = liveWelcomeFlow(
    { welcome_screen: screen, onboarding },
    lookup,
    (id) => input.ids.resolve('emoji', id),
    pending,
    live.welcomeScreen,
    everyoneChatsIn(input.live, input.target),
  );
  section.skipped = wanted.dropped;
  if (wanted.welcomeScreen) {
    section.welcome_screen_changes = changedFields(
      live.welcomeScreen ?? NO_WELCOME_SCREEN,
      wanted.welcomeScreen,
      RESTORED_WELCOME_SCREEN_FIELDS,
    );
  }
  section.onboarding_changes = changedFields(live.onboarding, wanted.onboarding, RESTORED_ONBOARDING_FIELDS);

  const livePrompts = new Map(live.onboarding.prompts.map((prompt) => [prompt.id, prompt]));
  const wantedIds = new Set(wanted.onboarding.prompts.map((prompt) => prompt.id));
  // Ranks among the prompts both have: the order a member is asked in.
  const kept = (prompts: OnboardingPrompt[]) =>
    prompts.filter((prompt) => livePrompts.has(prompt.id) && wantedIds.has(prompt.id)).map((p) => p.id);
  const liveRank = kept(live.onboarding.prompts);
  const wantedRank = kept(wanted.onboarding.prompts);
  for (const prompt of wanted.onboarding.prompts) {
    const current = livePrompts.get(prompt.id);
    if (!current) {
      section.onboarding_prompts_to_create.push(promptItem(prompt));
      continue;
    }
    const changed = changedFields(current, prompt, RESTORED_PROMPT_FIELDS);
    if (liveRank.indexOf(prompt.id) !== wantedRank.indexOf(prompt.id)) changed.push('position');
    if (changed.length > 0) {
      const update: UpdateItem<OnboardingPromptItem> = {
        current: promptItem(current),
        target: promptItem(prompt),
        changed_fields: changed,
      };
      section.onboarding_prompts_to_update.push(update);
    }
  }
  section.onboarding_prompts_to_delete = live.onboarding.prompts
    .filter((prompt) => !wantedIds.has(prompt.id))
    .map(promptItem);
  return section;
}

/** Whether the onboarding needs writing: its own fields or any of its prompts differ. */
export function onboardingDiffers(diff: RestoreDiff): boolean {
  return (
    (diff.onboarding_changes?.length ?? 0) +
      (diff.onboarding_prompts_to_create?.length ?? 0) +
      (diff.onboarding_prompts_to_update?.length ?? 0) +
      (diff.onboarding_prompts_to_delete?.length ?? 0) >
    0
  );
}
