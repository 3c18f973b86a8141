import {
  GUILD_IMAGE_SLOTS,
  type GuildImageSlot,
  type GuildSettings,
  type PlatformAutoModRule,
  type PlatformEmoji,
  type PlatformRole,
  type PlatformSticker,
  WELCOME_SCREEN_ENABLED_FEATURE,
  type PlatformWebhook,
} from '@lib/chat-platform';
import { AuditLogEvent } from 'discord-api-types/v10';
import type {
  SnapshotEmoji,
  SnapshotExpressions,
  SnapshotPayload,
  SnapshotSticker,
  SnapshotWebhook,
} from '../../snapshots/snapshot-payload';
import type { JournalAuditEntry } from '../../sync/change-journal-entry';
import type { UnknownObject } from './pre-raid-state';
import type { WelcomeFlow } from '../../snapshots/welcome-flow.reader';
import { RESTORED_AUTOMOD_FIELDS } from '../../restore/diff/automod-diff';

/** The audit log's key for each guild image's hash (an update's change). */
const IMAGE_HASH_KEYS: Record<GuildImageSlot, string> = {
  icon: 'icon_hash',
  banner: 'banner_hash',
  splash: 'splash_hash',
  discovery_splash: 'discovery_splash_hash',
};

export interface PreRaidExpressionsInput {
  /** The guild's settings, emojis and stickers now. */
  guild: GuildSettings;
  emojis: readonly PlatformEmoji[];
  stickers: readonly PlatformSticker[];
  automodRules: readonly PlatformAutoModRule[];
  /** The welcome screen and onboarding now; undefined where the bot may not read them. */
  welcomeFlow?: WelcomeFlow;
  /** The guild's incoming webhooks now; undefined when the bot may not read them (left out). */
  webhooks?: readonly PlatformWebhook[];
  /** The newest snapshot from before the raid: where deleted items' images come from. */
  snapshot: SnapshotPayload | null;
  actorEntries: readonly JournalAuditEntry[];
}

export interface PreRaidExpressions {
  parts: SnapshotExpressions;
  /** The guild's image hashes before the raid, for the slots the actor changed and that can be put back. */
  imageHashes: Partial<Record<GuildImageSlot, string | null>>;
  /** What the actor deleted or replaced whose image no snapshot from before the raid kept. */
  unknown: UnknownObject[];
}

/**
 * The guild's emojis, stickers and images as they were before the raid, as composePreRaidState
 * does for roles and channels: what the incident's actor uploaded goes, what they deleted comes
 * back from the snapshot taken before the raid (an emoji's image never changes, so that
 * snapshot's is the one), what they renamed gets its old name, and a guild image they replaced or
 * removed gets the hash (and the kept image) it had. Everything else stays as it is now: emojis
 * others added since the snapshot are not touched.
 */
export function composePreRaidExpressions(input: PreRaidExpressionsInput): PreRaidExpressions {
  const { snapshot } = input;
  const keptEmojis = new Map((snapshot?.emojis ?? []).map((emoji) => [emoji.id, emoji]));
  const keptStickers = new Map((snapshot?.stickers ?? []).map((sticker) => [sticker.id, sticker]));
  const emojis = new Map<string, SnapshotEmoji>(
    input.emojis
      .filter((emoji) => !emoji.managed)
      .map(({ id, name, animated, roles }) => [
        id,
        { id, name, animated, roles, image: keptEmojis.get(id)?.image ?? null },
      ]),
  );
  const stickers = new Map<string, SnapshotSticker>(
    input.stickers.map((sticker) => [
      sticker.id,
      { ...sticker, image: keptStickers.get(sticker.id)?.image ?? null },
    ]),
  );
  const keptRules = new Map((snapshot?.automod_rules ?? []).map((rule) => [rule.id, rule]));
  const rules = new Map(input.automodRules.map((rule) => [rule.id, structuredClone(rule)]));
  const keptWebhooks = new Map((snapshot?.webhooks ?? []).map((webhook) => [webhook.id, webhook]));
  /** A webhook's avatar: the kept image where the snapshot holds that hash for it. */
  const imageOf = (id: string, avatar: string | null) => {
    const kept = keptWebhooks.get(id);
    return avatar !== null && kept?.avatar === avatar ? kept.image : null;
  };
  const webhooks = new Map<string, SnapshotWebhook>(
    (input.webhooks ?? []).map(({ id, channel_id, name, avatar }) => [
      id,
      { id, channel_id, name, avatar, image: imageOf(id, avatar) },
    ]),
  );
  const unknown: PreRaidExpressions['unknown'] = [];
  const imageHashes: PreRaidExpressions['imageHashes'] = {};
  const created = {
    emoji: new Set<string>(),
    sticker: new Set<string>(),
    rule: new Set<string>(),
    webhook: new Set<string>(),
  };
  /** `id:key` of the fields already set back: the first (oldest) change holds the value before the raid. */
  const reverted = new Set<string>();

  // What each of the actor's entries undoes; the other kinds are composePreRaidState's.
  const undo: Partial<Record<number, (entry: JournalAuditEntry, id: string) => void>> = {
    [AuditLogEvent.EmojiCreate]: (_entry, id) => {
      created.emoji.add(id);
      emojis.delete(id);
    },
    [AuditLogEvent.StickerCreate]: (_entry, id) => {
      created.sticker.add(id);
      stickers.delete(id);
    },
    [AuditLogEvent.EmojiDelete]: (_entry, id) => {
      if (!created.emoji.has(id)) restoreDeleted(id, keptEmojis, emojis, 'emoji', unknown);
    },
    [AuditLogEvent.StickerDelete]: (_entry, id) => {
      if (!created.sticker.has(id)) restoreDeleted(id, keptStickers, stickers, 'sticker', unknown);
    },
    [AuditLogEvent.EmojiUpdate]: (entry, id) =>
      revertFields(emojis.get(id), entry, ['name', 'roles'], reverted),
    [AuditLogEvent.StickerUpdate]: (entry, id) =>
      revertFields(stickers.get(id), entry, ['name', 'description', 'tags'], reverted),
    [AuditLogEvent.AutoModerationRuleCreate]: (_entry, id) => {
      created.rule.add(id);
      rules.delete(id);
    },
    [AuditLogEvent.AutoModerationRuleDelete]: (_entry, id) => {
      if (!created.rule.has(id)) restoreDeleted(id, keptRules, rules, 'automod_rule', unknown);
    },
    [AuditLogEvent.AutoModerationRuleUpdate]: (entry, id) =>
      revertFields(rules.get(id), entry, [...RESTORED_AUTOMOD_FIELDS], reverted),
    [AuditLogEvent.WebhookCreate]: (_entry, id) => {
      created.webhook.add(id);
      webhooks.delete(id);
    },
    [AuditLogEvent.WebhookDelete]: (_entry, id) => {
      if (!created.webhook.has(id)) restoreDeleted(id, keptWebhooks, webhooks, 'webhook', unknown);
    },
    [AuditLogEvent.WebhookUpdate]: (entry, id) => {
      const webhook = webhooks.get(id);
      revertFields(webhook, entry, ['name', 'channel_id'], reverted);
      // The audit log names the avatar `avatar_hash`; an absent old value is no avatar.
      const change = entry.changes.find((candidate) => candidate.key === 'avatar_hash');
      if (!webhook || !change || reverted.has(`${id}:avatar_hash`)) return;
      reverted.add(`${id}:avatar_hash`);
      const avatar = (change.old_value as string | undefined) ?? null;
      const image = imageOf(id, avatar);
      if (avatar !== null && image === null) unknown.push({ object_type: 'webhook', object_id: id });
      else Object.assign(webhook, { avatar, image });
    },
    [AuditLogEvent.GuildUpdate]: (entry) => {
      for (const slot of GUILD_IMAGE_SLOTS) {
        const change = entry.changes.find((candidate) => candidate.key === IMAGE_HASH_KEYS[slot]);
        // The first change of the raid holds the hash from before it.
        if (change && !(slot in imageHashes))
          imageHashes[slot] = (change.old_value as string | undefined) ?? null;
      }
    },
  };
  for (const entry of input.actorEntries) {
    if (entry.target_id !== null) undo[entry.action_type]?.(entry, entry.target_id);
  }

  const guildImages: SnapshotExpressions['guild_images'] = {};
  for (const slot of GUILD_IMAGE_SLOTS) {
    const hash = slot in imageHashes ? imageHashes[slot] : input.guild[slot];
    if (!hash) continue;
    const digest = snapshot?.guild[slot] === hash ? snapshot.guild_images?.[slot] : undefined;
    if (digest) guildImages[slot] = digest;
    else if (slot in imageHashes) {
      // Replaced or removed by the actor, and no snapshot kept the image it had: left as it is.
      unknown.push({ object_type: 'guild_image', object_id: slot });
      delete imageHashes[slot];
    }
  }
  return {
    parts: {
      emojis: [...emojis.values()],
      stickers: [...stickers.values()],
      guild_images: guildImages,
      automod_rules: [...rules.values()],
      ...preRaidWelcomeFlow(input, unknown),
      ...(input.webhooks && { webhooks: [...webhooks.values()] }),
    },
    imageHashes,
    unknown,
  };
}

/**
 * The kept images of the pre-raid roles' icons, by role id: a role whose icon (`roles`, as composed
 * before the raid) is the one the snapshot from before the raid had keeps that snapshot's image.
 * An icon no snapshot kept is not listed: a restore from the undo leaves it as it is, and says so.
 */
export function preRaidRoleIcons(
  roles: readonly PlatformRole[],
  snapshot: SnapshotPayload | null,
): Record<string, string> {
  const kept = new Map((snapshot?.roles ?? []).map((role) => [role.id, role.icon]));
  const icons: Record<string, string> = {};
  for (const role of roles) {
    const digest = snapshot?.role_icons?.[role.id];
    if (role.icon !== null && digest && kept.get(role.id) === role.icon) icons[role.id] = digest;
  }
  return icons;
}

/** The audit-log events of a change to the onboarding (resources/audit-log). */
const ONBOARDING_EVENTS: readonly number[] = [
  AuditLogEvent.OnboardingCreate,
  AuditLogEvent.OnboardingUpdate,
  AuditLogEvent.OnboardingPromptCreate,
  AuditLogEvent.OnboardingPromptUpdate,
  AuditLogEvent.OnboardingPromptDelete,
];

/** Whether a guild update switched the welcome screen on or off (its WELCOME_SCREEN_ENABLED feature). */
function toggledWelcomeScreen(entry: JournalAuditEntry): boolean {
  if (entry.action_type !== (AuditLogEvent.GuildUpdate as number)) return false;
  const change = entry.changes.find((candidate) => candidate.key === 'features');
  if (!change) return false;
  const has = (value: unknown) => Array.isArray(value) && value.includes(WELCOME_SCREEN_ENABLED_FEATURE);
  return has(change.old_value) !== has(change.new_value);
}

/**
 * The welcome screen and onboarding before the raid: each the actor changed is the newest
 * snapshot's from before it (both are written whole, so the whole object comes back); the other
 * stays as it is now. The actor's onboarding changes are its audit-log events; of the welcome
 * screen's, only switching it on or off leaves one (a GUILD_UPDATE of its feature): an edit of
 * its text or channels alone cannot be told from another admin's and stays.
 */
function preRaidWelcomeFlow(
  input: PreRaidExpressionsInput,
  unknown: UnknownObject[],
): Partial<Pick<SnapshotExpressions, 'welcome_screen' | 'onboarding'>> {
  const now = input.welcomeFlow;
  if (!now) return {};
  const { snapshot, actorEntries } = input;
  const onboardingChanged = actorEntries.some((entry) => ONBOARDING_EVENTS.includes(entry.action_type));
  const screenChanged = actorEntries.some(toggledWelcomeScreen);
  const flow = { welcome_screen: now.welcome_screen, onboarding: now.onboarding };
  if (onboardingChanged) {
    if (snapshot?.onboarding) flow.onboarding = snapshot.onboarding;
    else unknown.push({ object_type: 'onboarding', object_id: 'onboarding' });
  }
  if (screenChanged) {
    if (snapshot?.welcome_screen !== undefined) flow.welcome_screen = snapshot.welcome_screen;
    else unknown.push({ object_type: 'welcome_screen', object_id: 'welcome_screen' });
  }
  return flow;
}

function restoreDeleted<T extends { id: string }>(
  id: string,
  kept: ReadonlyMap<string, T>,
  into: Map<string, T>,
  objectType: 'emoji' | 'sticker' | 'automod_rule' | 'webhook',
  unknown: PreRaidExpressions['unknown'],
): void {
  const before = kept.get(id);
  if (before) into.set(id, before);
  else unknown.push({ object_type: objectType, object_id: id });
}

/** The fields an update changed, back to their old values (an absent old value is left), each once. */
function revertFields(
  item: { id: string } | undefined,
  entry: JournalAuditEntry,
  keys: readonly string[],
  reverted: Set<string>,
): void {
  if (!item) return;
  for (const change of entry.changes) {
    const once = `${item.id}:${change.key}`;
    if (!keys.includes(change.key) || change.old_value === undefined || reverted.has(once)) continue;
    reverted.add(once);
    Object.assign(item, { [change.key]: change.old_value });
  }
}
