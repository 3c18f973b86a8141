import { PermissionFlagsBits } from 'discord-api-types/v10';
import { platformError } from './platform-error';
import type { FakeGuild } from './platform-state';

const ALL = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/**
 * What the platform lets the bot do in one guild, from the bot's own member: its permissions
 * (owner and ADMINISTRATOR hold all) and its place in the role hierarchy. Written apart from the
 * service's copy in @lib/chat-platform on purpose, so a mistake in one shows against the other.
 */
export class BotAuthority {
  private readonly permissions: bigint;
  private readonly highestPosition: number;
  private readonly isOwner: boolean;

  constructor(guild: FakeGuild, botId: string) {
    const member = guild.members.find((candidate) => candidate.user_id === botId);
    const held = guild.roles.filter((role) => member?.roles.includes(role.id) || role.id === guild.id);
    this.isOwner = guild.owner_id === botId;
    const combined = held.reduce((bits, role) => bits | BigInt(role.permissions), 0n);
    this.permissions = this.isOwner || (combined & PermissionFlagsBits.Administrator) !== 0n ? ALL : combined;
    this.highestPosition = Math.max(0, ...held.map((role) => role.position));
  }

  /** Missing Permissions unless the bot holds the bit. */
  require(bit: bigint): void {
    if ((this.permissions & bit) !== bit) throw platformError.missingPermissions();
  }

  /** The bot acts only on roles strictly below its highest role (the owner on any). */
  requireBelow(position: number): void {
    if (!this.isOwner && position >= this.highestPosition) throw platformError.missingPermissions();
  }

  /** A bot can grant, in a role or an overwrite, only permissions it holds itself. */
  requireGrantable(bits: bigint): void {
    if ((bits & ~this.permissions) !== 0n) throw platformError.missingPermissions();
  }
}
