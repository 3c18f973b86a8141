import type { AuditLogEvent, GatewayDispatchEvents, GatewayIntentBits } from 'discord-api-types/v10';
import { isDeepStrictEqual } from 'node:util';
import type { AuditLogChange } from './audit-log';
import type { FakeChannel, FakeGuild, FakeGuildSettings, FakeMember, FakeRole } from './platform-state';

/**
 * One thing a request changed in a guild, as copies from before and after it (null: it did not
 * exist then). `audited` marks what the request did on purpose, which the audit log records; the
 * rest are knock-on effects (a category's channels losing their parent, roles moving up when one
 * below them is deleted), which only the gateway reports.
 */
export type GuildChange =
  | {
      kind: 'channel';
      guildId: string;
      before: FakeChannel | null;
      after: FakeChannel | null;
      audited: boolean;
    }
  | { kind: 'role'; guildId: string; before: FakeRole | null; after: FakeRole | null; audited: boolean }
  | {
      kind: 'settings';
      guildId: string;
      before: FakeGuildSettings;
      after: FakeGuildSettings;
      audited: boolean;
    }
  /** A member left (`after` null) when kicked or banned. */
  | { kind: 'member'; guildId: string; before: FakeMember; after: FakeMember | null; audited: boolean }
  | { kind: 'ban'; guildId: string; userId: string }
  | { kind: 'unban'; guildId: string; userId: string }
  /**
   * What the store does not keep as a guild part (a prune's count, a webhook, an emoji, a sticker,
   * a bot added, the vanity URL): the one audit-log entry the platform writes for it, and the
   * gateway event that reports it, if any.
   */
  | {
      kind: 'entry';
      guildId: string;
      /** Null for a knock-on event that has no entry of its own (a moved webhook's old channel). */
      entry: {
        target_id: string | null;
        action_type: AuditLogEvent;
        changes?: AuditLogChange[];
        options?: Record<string, string>;
      } | null;
      dispatch?: {
        event: GatewayDispatchEvents;
        data: unknown;
        intent: GatewayIntentBits;
        /** Only for sessions whose account holds this permission (AutoMod events: MANAGE_GUILD). */
        permission?: bigint;
      };
    };

/**
 * What a request may change: a whole list (roles, channels), the settings, or one member. Members
 * are watched one by one, as a request acts on one member and a guild may have thousands.
 */
type WatchedPart = 'channels' | 'roles' | 'settings' | { member: string };

export function settingsOf(guild: FakeGuild): FakeGuildSettings {
  const { roles: _roles, channels: _channels, members: _members, ...settings } = guild;
  return structuredClone(settings);
}

/** Pairs of [before, after] by id, for every item that was added, removed or changed. */
function differences<T>(before: T[], after: T[], idOf: (item: T) => string): [T | null, T | null][] {
  const old = new Map(before.map((item) => [idOf(item), item]));
  const current = new Set(after.map(idOf));
  const pairs: [T | null, T | null][] = [];
  for (const item of before) {
    if (!current.has(idOf(item))) pairs.push([item, null]);
  }
  for (const item of after) {
    const previous = old.get(idOf(item)) ?? null;
    if (!isDeepStrictEqual(previous, item)) pairs.push([previous, structuredClone(item)]);
  }
  return pairs;
}

/**
 * Copies the parts of a guild a request may change before it runs, and afterwards lists what
 * changed. Only the parts named are copied, so a request pays for what it can touch.
 */
export class GuildWatch {
  private readonly channels?: FakeChannel[];
  private readonly roles?: FakeRole[];
  private readonly settings?: FakeGuildSettings;
  /** Copies of the watched members, by user id. */
  private readonly members = new Map<string, FakeMember>();

  constructor(
    private readonly guild: FakeGuild,
    parts: readonly WatchedPart[],
  ) {
    if (parts.includes('channels')) this.channels = structuredClone(guild.channels);
    if (parts.includes('roles')) this.roles = structuredClone(guild.roles);
    if (parts.includes('settings')) this.settings = settingsOf(guild);
    for (const part of parts) {
      if (typeof part !== 'object') continue;
      const member = memberOf(guild, part.member);
      if (member) this.members.set(part.member, structuredClone(member));
    }
  }

  /** What differs now; changes to `targets` (ids of what the request acted on) are audited. Those come first. */
  changes(targets: readonly string[]): GuildChange[] {
    const guildId = this.guild.id;
    const audited = (id: string | undefined) => id !== undefined && targets.includes(id);
    const changes: GuildChange[] = [];
    for (const [before, after] of differences(
      this.roles ?? [],
      this.roles ? this.guild.roles : [],
      (r) => r.id,
    )) {
      changes.push({ kind: 'role', guildId, before, after, audited: audited((before ?? after)?.id) });
    }
    const channels = this.channels ? this.guild.channels : [];
    for (const [before, after] of differences(this.channels ?? [], channels, (c) => c.id)) {
      changes.push({ kind: 'channel', guildId, before, after, audited: audited((before ?? after)?.id) });
    }
    if (this.settings && !isDeepStrictEqual(this.settings, settingsOf(this.guild))) {
      const after = settingsOf(this.guild);
      changes.push({ kind: 'settings', guildId, before: this.settings, after, audited: audited(guildId) });
    }
    // A member joining is not something a request here can do: only watched members change.
    for (const [userId, before] of this.members) {
      const now = memberOf(this.guild, userId);
      // Copied before comparing, as `before` was: a copy made elsewhere compares by its realm too.
      const after = now ? structuredClone(now) : null;
      if (isDeepStrictEqual(before, after)) continue;
      changes.push({ kind: 'member', guildId, before, after, audited: audited(userId) });
    }
    return [...changes.filter(isAudited), ...changes.filter((change) => !isAudited(change))];
  }
}

function memberOf(guild: FakeGuild, userId: string): FakeMember | undefined {
  return guild.members.find((member) => member.user_id === userId);
}

function isAudited(change: GuildChange): boolean {
  if (change.kind === 'entry') return change.entry !== null;
  return change.kind === 'ban' || change.kind === 'unban' || change.audited;
}
