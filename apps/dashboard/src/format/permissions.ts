import { PermissionFlagsBits } from 'discord-api-types/v10';

/** The names the platform's own settings show, where splitting the flag's name reads badly. */
const DISPLAY_NAMES: Partial<Record<keyof typeof PermissionFlagsBits, string>> = {
  CreateInstantInvite: 'Create Invite',
  ManageGuild: 'Manage Server',
  ViewGuildInsights: 'View Server Insights',
  SendTTSMessages: 'Send Text-to-Speech Messages',
  UseVAD: 'Use Voice Activity',
  ManageGuildExpressions: 'Manage Expressions',
  UseExternalEmojis: 'Use External Emoji',
  ManageEmojisAndStickers: 'Manage Emojis and Stickers',
};

/** Every permission bit the platform defines with its readable name, lowest bit first. */
const NAMED_BITS: { bit: bigint; name: string }[] = (() => {
  const seen = new Set<bigint>();
  const named: { bit: bigint; name: string }[] = [];
  for (const [flag, bit] of Object.entries(PermissionFlagsBits) as [
    keyof typeof PermissionFlagsBits,
    bigint,
  ][]) {
    // Some bits have two flag names (an old and a new one); the first listed wins.
    if (seen.has(bit)) continue;
    seen.add(bit);
    named.push({ bit, name: DISPLAY_NAMES[flag] ?? flag.replace(/([a-z])([A-Z])/g, '$1 $2') });
  }
  return named.sort((a, b) => (a.bit < b.bit ? -1 : 1));
})();

/** The names of the bits set in a permission set (a decimal string as the API sends it). */
export function permissionNames(bits: string | bigint): string[] {
  let value: bigint;
  try {
    value = BigInt(bits);
  } catch {
    return [];
  }
  return NAMED_BITS.filter(({ bit }) => (value & bit) === bit).map(({ name }) => name);
}

export interface OverrideLike {
  id: string;
  type: 'role' | 'member';
  allow: string;
  deny: string;
}

/**
 * An override as a sentence: "@Moderator: allow View Channel, deny Send Messages". A role is named
 * from `roleNames` (its id when unknown); a member by id; @everyone by its role (the guild's id).
 */
export function describeOverride(
  override: OverrideLike,
  roleNames: ReadonlyMap<string, string>,
  targetName?: string | null,
): string {
  const name =
    override.type === 'role'
      ? `@${(targetName ?? roleNames.get(override.id) ?? `role ${override.id}`).replace(/^@/, '')}`
      : `member ${targetName ?? override.id}`;
  const allow = permissionNames(override.allow);
  const deny = permissionNames(override.deny);
  const parts = [
    ...(allow.length ? [`allow ${allow.join(', ')}`] : []),
    ...(deny.length ? [`deny ${deny.join(', ')}`] : []),
  ];
  return `${name}: ${parts.length ? parts.join('; ') : 'no change from the channel'}`;
}
