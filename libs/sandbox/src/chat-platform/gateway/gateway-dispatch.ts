import type { GatewayDispatchEvents, GatewayIntentBits } from 'discord-api-types/v10';

/** An event about one guild, for the gateway sessions allowed to hear it. */
export interface GatewayDispatch {
  event: GatewayDispatchEvents;
  data: unknown;
  guildId: string;
  /** The intent a session must have asked for. */
  intent: GatewayIntentBits;
  /** Only for sessions whose account holds this permission in the guild. */
  permission?: bigint;
  /**
   * Only for this user's sessions, whether still a member or not (a bot removed from a guild hears
   * GUILD_DELETE); otherwise for the sessions of the guild's members.
   */
  recipientId?: string;
}
