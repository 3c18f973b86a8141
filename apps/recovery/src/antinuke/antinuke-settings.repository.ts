import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type AntiNukeSettings, DEFAULT_ANTINUKE_SETTINGS } from './workflows/antinuke-contract';

export interface StoredAntiNukeSettings extends AntiNukeSettings {
  /** null while the guild has never changed them (the defaults apply). */
  updated_at: string | null;
}

/** `recovery.antinuke_settings`: one row per guild once it changes a default. */
@Injectable()
export class AntiNukeSettingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `lock`: held until the transaction ends, so a read-modify-write PUT is not lost to another. */
  async get(
    guildId: string,
    manager: EntityManager = this.dataSource.manager,
    options: { lock?: boolean } = {},
  ): Promise<StoredAntiNukeSettings> {
    const [row] = await manager.query<(AntiNukeSettings & { updated_at: Date })[]>(
      `SELECT enabled, exempt_user_ids, threshold, window_seconds, auto_action_enabled, auto_action_mode,
              auto_lockdown_enabled, updated_at
         FROM recovery.antinuke_settings WHERE guild_id = $1${options.lock ? ' FOR UPDATE' : ''}`,
      [guildId],
    );
    if (!row) return { ...DEFAULT_ANTINUKE_SETTINGS, exempt_user_ids: [], updated_at: null };
    return {
      enabled: row.enabled,
      exempt_user_ids: row.exempt_user_ids,
      threshold: row.threshold,
      window_seconds: row.window_seconds,
      auto_action_enabled: row.auto_action_enabled,
      auto_action_mode: row.auto_action_mode,
      auto_lockdown_enabled: row.auto_lockdown_enabled,
      updated_at: new Date(row.updated_at).toISOString(),
    };
  }

  async put(guildId: string, settings: AntiNukeSettings, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO recovery.antinuke_settings
         (guild_id, enabled, exempt_user_ids, threshold, window_seconds, auto_action_enabled,
          auto_action_mode, auto_lockdown_enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (guild_id) DO UPDATE
         SET enabled = EXCLUDED.enabled,
             exempt_user_ids = EXCLUDED.exempt_user_ids,
             threshold = EXCLUDED.threshold,
             window_seconds = EXCLUDED.window_seconds,
             auto_action_enabled = EXCLUDED.auto_action_enabled,
             auto_action_mode = EXCLUDED.auto_action_mode,
             auto_lockdown_enabled = EXCLUDED.auto_lockdown_enabled,
             updated_at = now()`,
      [
        guildId,
        settings.enabled,
        settings.exempt_user_ids,
        settings.threshold,
        settings.window_seconds,
        settings.auto_action_enabled,
        settings.auto_action_mode,
        settings.auto_lockdown_enabled,
      ],
    );
  }

  /**
   * docs/behaviour.md appendix rule 7: a downgrade below ENTERPRISE switches auto-action off for
   * good (opt in again), and the automatic lockdown with it.
   */
  async switchAutoActionOff(guildId: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE recovery.antinuke_settings
          SET auto_action_enabled = false, auto_lockdown_enabled = false, updated_at = now()
        WHERE guild_id = $1 AND (auto_action_enabled OR auto_lockdown_enabled)`,
      [guildId],
    );
  }
}
