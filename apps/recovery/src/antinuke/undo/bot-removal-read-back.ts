import { Injectable, Logger } from '@nestjs/common';
import { AUDIT_LOG_PAGE_SIZE, type AuditLogEntry, ChatPlatformClient } from '@lib/chat-platform';
import { ChangeJournalRepository } from '../../sync/change-journal.repository';
import { snowflakeTime } from '../../sync/destructive-actions';
import { REMOVAL_SLACK_MS, compareSnowflakes, readBackFindings } from './audit-log-read-back';
import { RaidUndoRepository } from './raid-undo.repository';

/** Pages read at most per read-back (10,000 entries); a busier guild's removal is not reached. */
export const MAX_READ_BACK_PAGES = 100;

/** A `bot_removed` incident, as the read-back needs it. */
export interface RemovalToReadBack {
  incidentId: string;
  guildId: string;
  platformGuildId: string;
  /** The raider when live sync saw the entry that removed the bot; null otherwise. */
  actor: string | null;
  /** When the removal was recorded (the removing entry's time when it was seen). */
  removedAt: Date;
}

/**
 * While the bot is out of a guild, live sync sees nothing of it: "kick the bot first, then
 * destroy" leaves an incident with no raider and a journal holding nothing of the raid. Once the
 * bot is back, the platform's audit log (45 days) is read back, newest first, down to the removal:
 * the entry that kicked or banned the bot names the raider (and the raid's start), and the
 * raider's entries from then on go into the change journal as live sync keeps the ones it sees,
 * so the undo is composed as for any raid. Read again, nothing is recorded twice: the incident
 * keeps the raider it names and the journal passes over an entry it holds.
 */
@Injectable()
export class BotRemovalReadBack {
  private readonly logger = new Logger(BotRemovalReadBack.name);
  private botUserId: Promise<string> | null = null;

  constructor(
    private readonly platform: ChatPlatformClient,
    private readonly incidents: RaidUndoRepository,
    private readonly journal: ChangeJournalRepository,
  ) {}

  /**
   * The bot follows the guild again (live sync mirrors it): each removal of it that names no
   * raider yet is read back, so the incident names one before anyone asks for the undo.
   */
  async readBackUnnamed(guild: { id: string; platformGuildId: string }): Promise<void> {
    for (const incident of await this.incidents.unnamedRemovals(guild.id)) {
      await this.readBack({
        incidentId: incident.id,
        guildId: guild.id,
        platformGuildId: guild.platformGuildId,
        actor: null,
        removedAt: new Date(incident.first_action_at),
      });
    }
  }

  /** The incident's raider once read back, or null when the audit log does not name one. */
  async readBack(removal: RemovalToReadBack): Promise<string | null> {
    const botUserId = await this.ownUserId();
    const from = new Date(removal.removedAt.getTime() - REMOVAL_SLACK_MS);
    const read = await this.entriesSince(removal.platformGuildId, from);
    const findings = readBackFindings(read, {
      botUserId,
      removedAt: removal.removedAt,
      knownRaider: removal.actor,
    });
    if (findings.raider === null) {
      this.logger.warn(
        { guild_id: removal.guildId, incident_id: removal.incidentId, entries_read: read.length },
        'the audit log names nobody who removed the bot',
      );
      return null;
    }
    if (removal.actor === null && findings.removal) {
      await this.incidents.nameRaider(removal.incidentId, {
        actor: findings.raider,
        entryId: findings.removal.id,
        at: snowflakeTime(findings.removal.id),
      });
    }
    await this.journal.insert(
      [],
      findings.entries.map((entry) => ({ guild_id: removal.guildId, entry })),
    );
    this.logger.log(
      {
        guild_id: removal.guildId,
        incident_id: removal.incidentId,
        raider: findings.raider,
        entries: findings.entries.length,
      },
      'the removed bot’s audit log read back',
    );
    return findings.raider;
  }

  /**
   * The guild's audit-log entries written since `from`, newest first, a page at a time (each after
   * the last through the client's pacer), stopping at the first page that reaches back past it.
   */
  private async entriesSince(platformGuildId: string, from: Date): Promise<AuditLogEntry[]> {
    const entries: AuditLogEntry[] = [];
    let before: string | undefined;
    for (let page = 0; page < MAX_READ_BACK_PAGES; page++) {
      const read = await this.platform.readAuditLog(platformGuildId, { before, limit: AUDIT_LOG_PAGE_SIZE });
      const recent = read.filter((entry) => snowflakeTime(entry.id) >= from);
      entries.push(...recent);
      if (read.length < AUDIT_LOG_PAGE_SIZE || recent.length < read.length) return entries;
      before = read.reduce(
        (oldest, entry) => (compareSnowflakes(entry.id, oldest) < 0 ? entry.id : oldest),
        read[0].id,
      );
    }
    this.logger.warn(
      { platform_guild_id: platformGuildId, pages: MAX_READ_BACK_PAGES },
      'audit log read back only in part: the removal was not reached',
    );
    return entries;
  }

  private ownUserId(): Promise<string> {
    this.botUserId ??= this.platform.getCurrentUser().then(
      (user) => user.id,
      (error: unknown) => {
        this.botUserId = null;
        throw error;
      },
    );
    return this.botUserId;
  }
}
