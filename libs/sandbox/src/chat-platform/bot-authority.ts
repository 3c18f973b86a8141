import { PermissionFlagsBits } from 'discord-api-types/v10';
import { platformError } from './platform-error';
import type { FakeGuild, FakeMember } from './platform-state';

const ALL = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/**
 * What the platform lets a bot (the fake's own, or one a test registered) do in one guild, from its
 * own member: its permissions (owner and ADMINISTRATOR hold all) and its place in the role
 * hierarchy. Written apart from the service's copy in @lib/chat-platform on purpose, so a mistake
 * in one shows against the other.
 */
export class BotAuthority {
  private readonly permissions: bigint;
  private readonly highestPosition: number;
  private readonly isOwner: boolean;

  constructor(
    private readonly guild: FakeGuild,
    botId: string,
  ) {
    const member = guild.members.find((candidate) => candidate.user_id === botId);
    this.isOwner = guild.owner_id === botId;
    this.permissions = guildPermissions(guild, botId);
    this.highestPosition = highestPosition(guild, member);
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
    if (member.user_id === this.guild.owner_id) throw platformError.missingPermissions();
    this.requireBelow(highestPosition(this.guild, member));
  }

  /** A bot can grant, in a role or an overwrite, only permissions it holds itself. */
  requireGrantable(bits: bigint): void {
    if ((bits & ~this.permissions) !== 0n) throw platformError.missingPermissions();
  }
}

/**
 * A member's guild-level permissions (bot or user): @everyone's and their roles' bits; the owner and
 * ADMINISTRATOR hold all of them. Nothing for someone who is not a member.
 */
export function guildPermissions(guild: FakeGuild, userId: string): bigint {
  const member = guild.members.find((candidate) => candidate.user_id === userId);
  if (!member) return 0n;
  if (guild.owner_id === userId) return ALL;
  const held = guild.roles.filter((role) => member.roles.includes(role.id) || role.id === guild.id);
  const combined = held.reduce((bits, role) => bits | BigInt(role.permissions), 0n);
  return (combined & PermissionFlagsBits.Administrator) !== 0n ? ALL : combined;
}

/** The position of the member's highest role; 0 (@everyone's) for none, or for no member. */
function highestPosition(guild: FakeGuild, member: FakeMember | undefined): number {
  const held = guild.roles.filter((role) => member?.roles.includes(role.id));
  return Math.max(0, ...held.map((role) => role.position));
}
