import type { RestoreScope } from '../api/queries';

/** Every part a restore can put back, in the order the restore page offers them (RESTORE_SCOPES of libs/contracts). */
export const ALL_SCOPES: readonly RestoreScope[] = [
  'roles',
  'channels',
  'permission_overrides',
  'guild_settings',
  'member_roles',
  'bans',
  'emojis',
  'stickers',
  'guild_images',
  'automod',
  'webhooks',
  'onboarding',
];

/**
 * What the restore page preselects (DEFAULT_RESTORE_SCOPES of libs/contracts): the guild's
 * structure. Members’ roles and bans only when the user asks, or when undoing a raid.
 */
export const DEFAULT_SCOPES: readonly RestoreScope[] = [
  'roles',
  'channels',
  'permission_overrides',
  'guild_settings',
];

export const SCOPE_LABELS: Record<RestoreScope, string> = {
  roles: 'Roles',
  channels: 'Channels',
  permission_overrides: 'Permission overwrites',
  guild_settings: 'Server settings',
  member_roles: 'Members’ roles',
  bans: 'Bans',
  emojis: 'Custom emojis',
  stickers: 'Stickers',
  guild_images: 'Server images',
  automod: 'AutoMod rules',
  webhooks: 'Webhooks',
  onboarding: 'Welcome screen & onboarding',
};

/** The `scope` query value that preselects these scopes on the restore page: comma-separated. */
export function scopeQuery(scopes: readonly RestoreScope[]): string {
  return scopes.join(',');
}

/**
 * The scopes a `scope` query value names, known ones only, in ALL_SCOPES order; null when it is
 * absent or names none (the page then preselects DEFAULT_SCOPES).
 */
export function scopesFromQuery(value: string | null): RestoreScope[] | null {
  if (!value) return null;
  const named = new Set(value.split(',').map((part) => part.trim()));
  const scopes = ALL_SCOPES.filter((scope) => named.has(scope));
  return scopes.length > 0 ? scopes : null;
}
