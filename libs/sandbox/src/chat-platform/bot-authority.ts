import { PermissionFlagsBits } from 'discord-api-types/v10';
import { platformError } from './platform-error';
import type { FakeChannel, FakeGuild, FakeMember, FakeOverwrite } from './platform-state';

const ALL = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);
const { Administrator, ManageRoles, ViewChannel } = PermissionFlagsBits;

/**
 * What the platform lets a bot (the fake's own, or one a test registered) do in one guild, from its
 * own member: its permissions (owner and ADMINISTRATOR hold all), in the guild and in each channel,
 * and its place in the role hierarchy. Written apart from the service's copy in @lib/chat-platform
 * on purpose, so a mistake in one shows against the other.
 */
export class BotAuthority {
  private readonly permissions: bigint;
  private readonly highestPosition: number;
  private readonly isOwner: boolean;
  private readonly member: FakeMember | undefined;

  constructor(
    private readonly guild: FakeGuild,
    botId: string,
  ) {
    this.member = guild.members.find((candidate) => candidate.user_id === botId);
    this.isOwner = guild.owner_id === botId;
    this.permissions = guildPermissions(guild, botId);
    this.highestPosition = highestPosition(guild, this.member);
  }

  holds(bit: bigint): boolean {
    return (this.permissions & bit) === bit;
  }

  /** Missing Permissions unless the bot holds the bit. */
  require(bit: bigint): void {
    if (!this.holds(bit)) throw platformError.missingPermissions();
  }

  /** The bot acts only on roles strictly below its highest role (the owner on any). */
  requireBelow(position: number): void {
    if (!this.isOwner && position >= this.highestPosition) throw platformError.missingPermissions();
  }

  /**
   * The bot acts on a member (kick, ban, nickname) only when its highest role is above theirs, and
   * never on the owner; the owner acts on anyone.
   */
  requireOutranks(member: FakeMember): void {
    if (!this.outranks(member)) throw platformError.missingPermissions();
  }

  /** Whether requireOutranks lets the bot act on the member. */
  outranks(member: FakeMember): boolean {
    if (member.user_id === this.guild.owner_id) return false;
    return this.isOwner || highestPosition(this.guild, member) < this.highestPosition;
  }

  /** A bot can grant, in a role, only permissions it holds itself. */
  requireGrantable(bits: bigint): void {
    if ((bits & ~this.permissions) !== 0n) throw platformError.missingPermissions();
  }

  /**
   * The bot's permissions in one channel, as topics/permissions "Permission Overwrites" computes
   * them: the guild-level bits, then @everyone's overwrite, then the bot's roles' overwrites
   * together (denies, then allows), then its member overwrite. ADMINISTRATOR and the owner bypass
   * overwrites. Without VIEW_CHANNEL the bot holds nothing in the channel ("Implicit Permissions").
   */
  channelPermissions(channel: FakeChannel): bigint {
    if (this.isOwner || (this.permissions & Administrator) !== 0n) return ALL;
    let bits = this.permissions;
    const overwrites = channel.permission_overwrites;
    const everyone = overwrites.find((o) => o.type === 0 && o.id === this.guild.id);
    if (everyone) bits = (bits & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
    let allow = 0n;
    let deny = 0n;
    for (const overwrite of this.ownRoleOverwrites(channel)) {
      allow |= BigInt(overwrite.allow);
      deny |= BigInt(overwrite.deny);
    }
    bits = (bits & ~deny) | allow;
    const own = overwrites.find((o) => o.type === 1 && o.id === this.member?.user_id);
    if (own) bits = (bits & ~BigInt(own.deny)) | BigInt(own.allow);
    return (bits & ViewChannel) === 0n ? 0n : bits;
  }

  /**
   * A channel the bot cannot see is out of its reach: the platform answers Missing Access (50001)
   * for it. The code is not documented for every route; a refusal is the stricter reading.
   */
  requireVisible(channel: FakeChannel): void {
    if ((this.channelPermissions(channel) & ViewChannel) === 0n) throw platformError.missingAccess();
  }

  /** Missing Permissions unless the bot holds the bit in the channel (MANAGE_CHANNELS, ...). */
  requireInChannel(channel: FakeChannel, bit: bigint): void {
    this.requireVisible(channel);
    if ((this.channelPermissions(channel) & bit) !== bit) throw platformError.missingPermissions();
  }

  /**
   * Setting or removing overwrites (resources/channel "Edit Channel Permissions"): the bot needs
   * MANAGE_ROLES ("Manage Permissions") in the channel, and may allow or deny only bits it holds
   * there. MANAGE_ROLES itself only an administrator, or a bot allowed MANAGE_ROLES by an overwrite
   * of that very channel, may put in an overwrite. A channel being created (`channel` undefined)
   * has no overwrite of its own yet: the guild-level bits count, and MANAGE_ROLES needs
   * ADMINISTRATOR (the docs say nothing of this case; this is the stricter reading).
   */
  requireOverwritable(channel: FakeChannel | undefined, overwrites: readonly FakeOverwrite[]): void {
    if (this.isOwner || (this.permissions & Administrator) !== 0n) return;
    if (channel) this.requireVisible(channel);
    const held = channel ? this.channelPermissions(channel) : this.permissions;
    if ((held & ManageRoles) === 0n) throw platformError.missingPermissions();
    const explicit = channel !== undefined && this.allowedManageRolesByOverwrite(channel);
    for (const overwrite of overwrites) {
      const bits = BigInt(overwrite.allow) | BigInt(overwrite.deny);
      if ((bits & ~held) !== 0n) throw platformError.missingPermissions();
      if ((bits & ManageRoles) !== 0n && !explicit) throw platformError.missingPermissions();
    }
  }

  /** An overwrite of the channel that applies to the bot allows MANAGE_ROLES. */
  private allowedManageRolesByOverwrite(channel: FakeChannel): boolean {
    const applying = [
      ...channel.permission_overwrites.filter((o) => o.type === 0 && o.id === this.guild.id),
      ...this.ownRoleOverwrites(channel),
      ...channel.permission_overwrites.filter((o) => o.type === 1 && o.id === this.member?.user_id),
    ];
    return applying.some((overwrite) => (BigInt(overwrite.allow) & ManageRoles) !== 0n);
  }

  private ownRoleOverwrites(channel: FakeChannel): FakeOverwrite[] {
    const roles = new Set(this.member?.roles ?? []);
    return channel.permission_overwrites.filter((o) => o.type === 0 && roles.has(o.id));
  }
}

/**
 * A member's guild-level permissions (bot or user): @everyone's and their roles' bits; the owner and
 * ADMINISTRATOR hold all of them. Nothing for someone who is not a member. A timed-out member keeps
 * only VIEW_CHANNEL and READ_MESSAGE_HISTORY of them until the timeout ends (topics/permissions,
 * "Permissions for Timed Out Members"); the owner and ADMINISTRATOR are exempt.
 */
export function guildPermissions(guild: FakeGuild, userId: string, now = Date.now()): bigint {
  const member = guild.members.find((candidate) => candidate.user_id === userId);
  if (!member) return 0n;
  if (guild.owner_id === userId) return ALL;
  const held = guild.roles.filter((role) => member.roles.includes(role.id) || role.id === guild.id);
  const combined = held.reduce((bits, role) => bits | BigInt(role.permissions), 0n);
  if ((combined & PermissionFlagsBits.Administrator) !== 0n) return ALL;
  return isTimedOut(member, now)
    ? combined & (PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory)
    : combined;
}

/** Whether the member's timeout is in force: its end is in the future. */
export function isTimedOut(member: FakeMember, now = Date.now()): boolean {
  const until = member.communication_disabled_until;
  return until ? Date.parse(until) > now : false;
}

/** The position of the member's highest role; 0 (@everyone's) for none, or for no member. */
function highestPosition(guild: FakeGuild, member: FakeMember | undefined): number {
  const held = guild.roles.filter((role) => member?.roles.includes(role.id));
  return Math.max(0, ...held.map((role) => role.position));
}
