import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { GuildsRepository } from '../guilds/guilds.repository';
import { SnapshotsRepository } from '../snapshots/snapshots.repository';
import type { IncidentAction } from './destructive-action';
import { AntiNukeIncidentsRepository } from './antinuke-incidents.repository';

/** What live sync knows of the bot's removal from a platform guild. */
export interface BotRemoval {
  platformGuildId: string;
  /** `bot_removed`: the bot left the guild; `bot_audit_log_lost`: it can no longer read the audit log. */
  action: Extract<IncidentAction, 'bot_removed' | 'bot_audit_log_lost'>;
  /**
   * Who did it, from the audit-log entry that removed the bot when live sync saw it first; null
   * otherwise: removed, the bot can no longer read the audit log that names them.
   */
  actorPlatformUserId: string | null;
  auditLogEntryId: string | null;
  /** Epoch milliseconds. */
  at: number;
  /** The guild's plan has ANTINUKE_DETECT: the removal is an incident with the owner's DM. */
  incident: boolean;
}

/**
 * The bot's removal from a guild, or its loss of the audit log: the registry stops protecting a
 * guild the bot left (`removed_at`), and AntiNuke opens an incident at once, with no threshold, in
 * the same transaction. The incident names the last snapshot taken before, the newest state the
 * owner can restore once the bot is back; its AntiNukeIncidentOpened event DMs them.
 */
@Injectable()
export class BotRemovalRecorder {
  private readonly logger = new Logger(BotRemovalRecorder.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly guilds: GuildsRepository,
    private readonly snapshots: SnapshotsRepository,
    private readonly incidents: AntiNukeIncidentsRepository,
  ) {}

  /** The incident's id, or null when none was opened (not registered, already removed, no plan). */
  async record(removal: BotRemoval): Promise<string | null> {
    return this.dataSource.transaction(async (manager) => {
      const guild =
        removal.action === 'bot_removed'
          ? await this.guilds.markRemoved(removal.platformGuildId, manager)
          : await this.guilds.activeByPlatformId(removal.platformGuildId, manager);
      if (!guild || !removal.incident) return null;
      const lastSnapshotId = await this.snapshots.newestId(guild.id, manager);
      const incidentId = uuidv7();
      await this.incidents.openIn(manager, {
        incidentId,
        guildId: guild.id,
        burst: {
          kind: removal.action,
          actor_platform_user_id: removal.actorPlatformUserId,
          count: 1,
          audit_log_entry_ids: removal.auditLogEntryId ? [removal.auditLogEntryId] : [],
          first_at: removal.at,
          last_at: removal.at,
        },
        snapshotId: lastSnapshotId,
        snapshotError: lastSnapshotId ? null : 'no snapshot of the guild was taken before',
        autoActionTaken: false,
        autoActionError: null,
        openedAt: new Date().toISOString(),
      });
      this.logger.warn(
        { guild_id: guild.id, action: removal.action, actor_platform_user_id: removal.actorPlatformUserId },
        'antinuke incident: the bot lost the guild',
      );
      return incidentId;
    });
  }
}
