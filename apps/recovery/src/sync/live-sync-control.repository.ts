import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * The pause a restore puts on live sync (docs/behaviour.md appendix step 3): while a guild is paused, its
 * mirror is not updated from the restore's half-done changes. The pause is a row, so every
 * replica and a restarted worker see it. Live sync consults `isPaused` and clears its buffered
 * events for the guild on resume. The pause does not blind AntiNuke: destructive actions are
 * still reported then, all but the bot's own (the restore's writes are the bot's).
 */
@Injectable()
export class LiveSyncControl {
  constructor(private readonly dataSource: DataSource) {}

  async pause(guildId: string, restoreJobId: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO recovery.live_sync_pauses (guild_id, restore_job_id) VALUES ($1, $2)
       ON CONFLICT (guild_id) DO UPDATE SET restore_job_id = EXCLUDED.restore_job_id, paused_at = now()`,
      [guildId, restoreJobId],
    );
  }

  /** Ends the pause this job put on; a pause of a later job of the guild stays. */
  async resume(guildId: string, restoreJobId: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM recovery.live_sync_pauses WHERE guild_id = $1 AND restore_job_id = $2`,
      [guildId, restoreJobId],
    );
  }

  async isPaused(guildId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM recovery.live_sync_pauses WHERE guild_id = $1`,
      [guildId],
    );
    return rows.length > 0;
  }
}
