import { Injectable, Logger } from '@nestjs/common';
import { GuildsRepository } from './guilds.repository';

/**
 * The live-sync events after which a member's permissions may differ: their roles or timeout
 * changed (member_update), they left or were banned, a role's permissions changed or the role went,
 * or the guild's settings changed (the owner among them). A new role has no members yet.
 */
const ACCESS_CHANGING = new Set([
  'member_update',
  'member_remove',
  'member_ban',
  'role_update',
  'role_delete',
  'guild_settings_update',
]);

/**
 * Ends the cached permission answers of a guild when live sync sees a change that can alter them,
 * on every replica (the generation is read with the guild row), so a demoted or timed-out manager
 * is refused at their next request rather than up to 60 s later.
 */
@Injectable()
export class GuildAccessChanges {
  private readonly logger = new Logger(GuildAccessChanges.name);

  constructor(private readonly guilds: GuildsRepository) {}

  /**
   * Called for every event live sync receives, synchronously: the write is handed off, never
   * awaited, and its failure only logged (the answers then last their 60 s).
   */
  notice(event: { type: string; platformGuildId?: string }): void {
    if (!event.platformGuildId || !ACCESS_CHANGING.has(event.type)) return;
    const platformGuildId = event.platformGuildId;
    void this.guilds.moveAccessGeneration(platformGuildId).catch((error: unknown) => {
      this.logger.warn(
        { platform_guild_id: platformGuildId, event: event.type, err: String(error) },
        'cached permission answers could not be ended',
      );
    });
  }
}
