import type { Schemas } from '../api/client';

type Preview = Schemas['RestorePreviewView'];
type Payload = Schemas['SnapshotPayload'];
type ChannelItem = Schemas['ChannelItem'];
type RoleItem = Schemas['RoleItem'];
type OverrideItem = Schemas['OverrideItem'];
type ClampedItem = Schemas['ClampedItem'];

export type ChangeKind = 'create' | 'update' | 'delete';

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

export interface RoleChange {
  kind: ChangeKind;
  id: string;
  name: string;
  /** `#rrggbb`, or null for no colour (or a deleted role, whose colour the diff does not carry). */
  color: string | null;
  /** A gradient's second colour, `#rrggbb`; null for a role of one colour. */
  secondaryColor: string | null;
  fields: FieldChange[];
  /** Values restored as the live guild allows rather than as the snapshot has them, and why. */
  notes: string[];
}

export interface ChannelChange {
  kind: ChangeKind;
  id: string;
  name: string;
  type: number;
  fields: FieldChange[];
  /** Values restored as the live guild allows rather than as the snapshot has them, and why. */
  notes: string[];
}

export interface ChannelGroup {
  /** The category's id (snapshot or live), or null for channels outside any category. */
  categoryId: string | null;
  name: string;
  /** What happens to the category itself, if anything. */
  change: ChannelChange | null;
  channels: ChannelChange[];
}

export interface OverrideGroup {
  channelId: string;
  channelName: string;
  apply: OverrideItem[];
  remove: OverrideItem[];
}

export interface PreviewCounts {
  roles: Record<ChangeKind, number>;
  channels: Record<ChangeKind, number>;
  overrides: { apply: number; remove: number };
  settings: number;
  /** Members given roles back (one update each), and bans lifted. */
  members: number;
  bans: number;
  /** With their scopes: custom emojis and stickers by kind of change, the guild's images set. */
  emojis: Record<ChangeKind, number>;
  stickers: Record<ChangeKind, number>;
  images: number;
  automod: Record<ChangeKind, number>;
  /** The welcome screen and the onboarding's settings (updates), and its prompts by kind of change. */
  onboarding: Record<ChangeKind, number>;
  webhooks: Record<ChangeKind, number>;
  skipped: number;
  total: number;
}

/** One emoji, sticker or guild image the restore makes, changes or deletes, as the preview lists it. */
export interface ExpressionChange {
  kind: ChangeKind;
  id: string;
  name: string;
  /** What changes (renamed, roles, description...), or what it is (animated, the banner). */
  detail: string;
}

const IMAGE_SLOT_NAMES: Record<string, string> = {
  icon: 'Server icon',
  banner: 'Banner',
  splash: 'Invite background',
  discovery_splash: 'Discovery background',
};

/**
 * The preview's emojis, stickers, guild images, AutoMod rules, and welcome screen and onboarding
 * as lists of changes (empty without their scopes).
 */
export function expressionChanges(preview: Preview): {
  emojis: ExpressionChange[];
  stickers: ExpressionChange[];
  images: ExpressionChange[];
  automod: ExpressionChange[];
  onboarding: ExpressionChange[];
  webhooks: ExpressionChange[];
} {
  const listed = <T extends { id: string; name: string }>(
    kind: ChangeKind,
    items: T[] | undefined,
    detail: (item: T) => string,
  ): ExpressionChange[] =>
    (items ?? []).map((item) => ({ kind, id: item.id, name: item.name, detail: detail(item) }));
  const changed = (fields: string[]) => `changes ${fields.join(', ')}`;
  return {
    emojis: [
      ...listed('create', preview.emojis_to_create, (emoji) => (emoji.animated ? 'animated' : '')),
      ...(preview.emojis_to_update ?? []).map((update) => ({
        kind: 'update' as const,
        id: update.target.id,
        name: update.target.name,
        detail: changed(update.changed_fields),
      })),
      ...listed('delete', preview.emojis_to_delete, () => 'not in the snapshot'),
    ],
    stickers: [
      ...listed('create', preview.stickers_to_create, (sticker) => sticker.description ?? ''),
      ...(preview.stickers_to_update ?? []).map((update) => ({
        kind: 'update' as const,
        id: update.target.id,
        name: update.target.name,
        detail: changed(update.changed_fields),
      })),
      ...listed('delete', preview.stickers_to_delete, () => 'not in the snapshot'),
    ],
    images: (preview.guild_images_to_set ?? []).map((item) => ({
      kind: item.target === null ? 'delete' : item.current === null ? 'create' : 'update',
      id: item.slot,
      name: IMAGE_SLOT_NAMES[item.slot] ?? item.slot,
      detail: item.target === null ? 'removed: the snapshot has none' : 'put back as the snapshot has it',
    })),
    automod: [
      ...listed('create', preview.automod_rules_to_create, (rule) => (rule.enabled ? '' : 'disabled')),
      ...(preview.automod_rules_to_update ?? []).map((update) => ({
        kind: 'update' as const,
        id: update.target.id,
        name: update.target.name,
        detail: changed(update.changed_fields),
      })),
      ...listed('delete', preview.automod_rules_to_delete, () => 'not in the snapshot'),
    ],
    onboarding: onboardingChanges(preview, changed),
    webhooks: [
      ...listed('create', preview.webhooks_to_create, () => 'made anew: it gets a new address'),
      ...(preview.webhooks_to_update ?? []).map((update) => ({
        kind: 'update' as const,
        id: update.target.id,
        name: update.target.name,
        detail: changed(update.changed_fields.map((field) => (field === 'channel_id' ? 'channel' : field))),
      })),
      ...listed('delete', preview.webhooks_to_delete, () => 'not in the snapshot'),
    ],
  };
}

/** The welcome screen and the onboarding's own settings as one update each, then its prompts. */
function onboardingChanges(preview: Preview, changed: (fields: string[]) => string): ExpressionChange[] {
  const whole = (id: string, name: string, fields: string[] | undefined): ExpressionChange[] =>
    fields && fields.length > 0 ? [{ kind: 'update', id, name, detail: changed(fields) }] : [];
  const prompt = (kind: ChangeKind, detail: string) => (item: { id: string; title: string }) => ({
    kind,
    id: item.id,
    name: `Question “${item.title}”`,
    detail,
  });
  return [
    ...whole('welcome_screen', 'Welcome screen', preview.welcome_screen_changes),
    ...whole('onboarding', 'Onboarding settings', preview.onboarding_changes),
    ...(preview.onboarding_prompts_to_create ?? []).map(prompt('create', 'put back')),
    ...(preview.onboarding_prompts_to_update ?? []).map((update) => ({
      ...prompt('update', changed(update.changed_fields))(update.target),
    })),
    ...(preview.onboarding_prompts_to_delete ?? []).map(prompt('delete', 'not in the snapshot')),
  ];
}

export interface GroupedPreview {
  counts: PreviewCounts;
  roles: RoleChange[];
  channels: ChannelGroup[];
  overrides: OverrideGroup[];
  settings: FieldChange[];
  skipped: Preview['skipped'];
}

export const CATEGORY = 4;

const CHANNEL_TYPE_NAMES: Record<number, string> = {
  0: 'text',
  2: 'voice',
  4: 'category',
  5: 'announcement',
  13: 'stage',
  15: 'forum',
  16: 'media',
};

export function channelTypeName(type: number): string {
  return CHANNEL_TYPE_NAMES[type] ?? `type ${type}`;
}

/** A value of the diff as the reader sees it; permission sets stay numbers here (too long). */
export function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/**
 * A role's icon as the reader sees it: the diff names the image by the platform's hash, which
 * says nothing to a reader; `which` tells the live image from the snapshot's.
 */
function iconShown(value: unknown, which: string): string {
  return typeof value === 'string' && value !== '' ? which : '(none)';
}

/** A clamped value as the reader sees it: a topic by its length, which is what was cut. */
function clampedValue(item: ClampedItem, value: ClampedItem['snapshot_value']): string {
  if (item.field === 'icon') return iconShown(value, 'an image');
  return item.field === 'topic' && typeof value === 'string' ? `${value.length} characters` : shown(value);
}

/** Each role's or channel's notes, by scope and id (snapshot ids, as the diff's targets carry). */
function notesByItem(clamped: readonly ClampedItem[]): (scope: ClampedItem['scope'], id: string) => string[] {
  const notes = new Map<string, string[]>();
  for (const item of clamped) {
    const key = `${item.scope} ${item.id}`;
    const note =
      `${item.field.replace(/_/g, ' ')}: ${clampedValue(item, item.snapshot_value)} in the snapshot, ` +
      `restored as ${clampedValue(item, item.restored_value)} (${item.reason})`;
    notes.set(key, [...(notes.get(key) ?? []), note]);
  }
  return (scope, id) => notes.get(`${scope} ${id}`) ?? [];
}

interface ShownEmoji {
  emoji_id: string | null;
  emoji_name: string | null;
}

function shownEmoji(emoji: ShownEmoji | null | undefined): string {
  if (!emoji) return '';
  return emoji.emoji_name ?? (emoji.emoji_id ? 'a custom emoji' : '');
}

/** A forum's fields in words: its tags by name (with their emoji), its sort order and layout. */
const FORUM_FIELD_TEXT: Record<string, (value: unknown) => string> = {
  available_tags: (tags) =>
    (tags as (ShownEmoji & { name: string; moderated: boolean })[])
      .map((tag) => [shownEmoji(tag), tag.name, tag.moderated ? '(moderated)' : ''].filter(Boolean).join(' '))
      .join(', ') || '(none)',
  default_reaction_emoji: (emoji) => shownEmoji(emoji as ShownEmoji | null) || '(none)',
  default_sort_order: (order) => ({ 0: 'latest activity', 1: 'creation date' })[order as 0 | 1] ?? '(none)',
  default_forum_layout: (layout) => ({ 1: 'list', 2: 'gallery' })[layout as 1 | 2] ?? '(none)',
};

function shownField(field: string, value: unknown): string {
  return field in FORUM_FIELD_TEXT && value !== undefined ? FORUM_FIELD_TEXT[field](value) : shown(value);
}

function fieldChanges<T extends object>(update: { current: T; target: T; changed_fields: string[] }) {
  return update.changed_fields.map((field) => {
    const before = (update.current as Record<string, unknown>)[field];
    const after = (update.target as Record<string, unknown>)[field];
    return field === 'icon'
      ? { field, before: iconShown(before, 'another image'), after: iconShown(after, 'the snapshot’s image') }
      : { field, before: shownField(field, before), after: shownField(field, after) };
  });
}

/**
 * The preview grouped like the snapshot's tree: roles in order, channels under their categories,
 * overrides under their channel, with counts per kind. Category and channel names come from the
 * diff, else from the snapshot (`payload`), else the id.
 */
export function groupPreview(preview: Preview, payload?: Payload | null): GroupedPreview {
  const notes = notesByItem(preview.clamped);
  const roleChanges: (RoleChange & { position: number })[] = [
    ...preview.roles_to_create.map((role: RoleItem) => ({
      kind: 'create' as const,
      id: role.id,
      name: role.name,
      color: role.color === '#000000' ? null : role.color,
      secondaryColor: role.secondary_color,
      fields: [],
      notes: notes('roles', role.id),
      position: role.position,
    })),
    ...preview.roles_to_update.map((update) => ({
      kind: 'update' as const,
      id: update.current.id,
      name: update.target.name,
      color: update.target.color === '#000000' ? null : update.target.color,
      secondaryColor: update.target.secondary_color,
      fields: fieldChanges(update),
      notes: notes('roles', update.target.id),
      position: update.target.position,
    })),
    ...preview.roles_to_delete.map((role) => ({
      kind: 'delete' as const,
      id: role.id,
      name: role.name,
      color: null,
      secondaryColor: null,
      fields: [],
      notes: [],
      position: -1,
    })),
  ];
  // Highest first, as the platform lists roles; deletions last.
  roleChanges.sort((a, b) => b.position - a.position);

  const names = new Map<string, { name: string; type: number; position: number; parent: string | null }>();
  for (const channel of payload?.channels ?? []) {
    names.set(channel.id, {
      name: channel.name,
      type: channel.type,
      position: channel.position,
      parent: channel.parent_id,
    });
  }
  const remember = (channel: ChannelItem) =>
    names.set(channel.id, {
      name: channel.name,
      type: channel.type,
      position: channel.position,
      parent: channel.parent_id,
    });
  preview.channels_to_create.forEach(remember);
  preview.channels_to_update.forEach((update) => {
    remember(update.current);
    remember(update.target);
  });

  const changes: (ChannelChange & { parent: string | null; position: number })[] = [
    ...preview.channels_to_create.map((channel) => ({
      kind: 'create' as const,
      id: channel.id,
      name: channel.name,
      type: channel.type,
      fields: [],
      notes: notes('channels', channel.id),
      parent: channel.parent_id,
      position: channel.position,
    })),
    ...preview.channels_to_update.map((update) => ({
      kind: 'update' as const,
      id: update.current.id,
      name: update.target.name,
      type: update.target.type,
      fields: fieldChanges(update),
      notes: notes('channels', update.target.id),
      parent: update.target.parent_id,
      position: update.target.position,
    })),
    ...preview.channels_to_delete.map((channel) => ({
      kind: 'delete' as const,
      id: channel.id,
      name: channel.name,
      type: channel.type,
      fields: [],
      notes: [],
      parent: names.get(channel.id)?.parent ?? null,
      position: Number.MAX_SAFE_INTEGER,
    })),
  ];
  const groups = new Map<string | null, ChannelGroup & { position: number }>();
  const groupFor = (categoryId: string | null) => {
    let group = groups.get(categoryId);
    if (!group) {
      const known = categoryId ? names.get(categoryId) : undefined;
      group = {
        categoryId,
        name: categoryId ? (known?.name ?? `category ${categoryId}`) : 'Outside any category',
        change: null,
        channels: [],
        position: categoryId ? (known?.position ?? Number.MAX_SAFE_INTEGER) : -1,
      };
      groups.set(categoryId, group);
    }
    return group;
  };
  for (const change of changes.sort((a, b) => a.position - b.position)) {
    if (change.type === CATEGORY) {
      const { parent: _parent, position: _position, ...category } = change;
      groupFor(change.id).change = category;
      groupFor(change.id).name = change.name;
    } else {
      const { parent, position: _position, ...channel } = change;
      groupFor(parent).channels.push(channel);
    }
  }

  const overrideGroups = new Map<string, OverrideGroup>();
  const overrideGroup = (item: OverrideItem) => {
    let group = overrideGroups.get(item.channel_id);
    if (!group) {
      group = {
        channelId: item.channel_id,
        channelName: item.channel_name || names.get(item.channel_id)?.name || item.channel_id,
        apply: [],
        remove: [],
      };
      overrideGroups.set(item.channel_id, group);
    }
    return group;
  };
  preview.overrides_to_apply.forEach((item) => overrideGroup(item).apply.push(item));
  preview.overrides_to_remove.forEach((item) => overrideGroup(item).remove.push(item));

  // A channel setting (rules_channel_id, ...) names its channel.
  const setting = (field: string, value: unknown) =>
    field.endsWith('_channel_id') && typeof value === 'string' && names.has(value)
      ? `#${names.get(value)!.name}`
      : shown(value);
  const settings = Object.entries(preview.guild_settings_diff).flatMap(([field, change]) =>
    change ? [{ field, before: setting(field, change.current), after: setting(field, change.target) }] : [],
  );

  const count = (items: { kind: ChangeKind }[]) => ({
    create: items.filter((item) => item.kind === 'create').length,
    update: items.filter((item) => item.kind === 'update').length,
    delete: items.filter((item) => item.kind === 'delete').length,
  });
  const expressions = expressionChanges(preview);
  const counts: PreviewCounts = {
    roles: count(roleChanges),
    channels: count(changes),
    overrides: { apply: preview.overrides_to_apply.length, remove: preview.overrides_to_remove.length },
    settings: settings.length,
    members: preview.members_to_update,
    bans: preview.bans_to_lift.length,
    emojis: count(expressions.emojis),
    stickers: count(expressions.stickers),
    images: expressions.images.length,
    automod: count(expressions.automod),
    onboarding: count(expressions.onboarding),
    webhooks: count(expressions.webhooks),
    skipped: preview.skipped.length,
    total: 0,
  };
  counts.total =
    roleChanges.length +
    changes.length +
    counts.overrides.apply +
    counts.overrides.remove +
    counts.settings +
    counts.members +
    counts.bans +
    expressions.emojis.length +
    expressions.stickers.length +
    counts.images +
    expressions.automod.length +
    expressions.onboarding.length +
    expressions.webhooks.length;

  return {
    counts,
    roles: roleChanges.map(({ position: _position, ...role }) => role),
    channels: [...groups.values()]
      .sort((a, b) => a.position - b.position)
      .map(({ position: _position, ...group }) => group),
    overrides: [...overrideGroups.values()].sort((a, b) => a.channelName.localeCompare(b.channelName)),
    settings,
    skipped: preview.skipped,
  };
}
