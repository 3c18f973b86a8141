import { StatementMigration } from '@lib/database';

/**
 * What a restore run needs beyond its job row: where recreated roles and channels live now, the
 * pause of live sync while a restore changes the guild, and what the user is told afterwards.
 */
export class RestoreRuns1764000000000 extends StatementMigration {
  name = 'RestoreRuns1764000000000';

  protected readonly upStatements = [
    // A role or channel recreated by a restore gets a new platform id; overwrites, parents and
    // later previews of older snapshots follow original -> replacement (chains allowed).
    `
      CREATE TABLE recovery.platform_id_replacements (
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id),
        kind text NOT NULL CHECK (kind IN ('role', 'channel')),
        original_id text NOT NULL,
        replacement_id text NOT NULL,
        restore_job_id uuid NOT NULL REFERENCES recovery.restore_jobs (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (guild_id, kind, original_id)
      )`,
    `
      CREATE TABLE recovery.live_sync_pauses (
        guild_id uuid PRIMARY KEY REFERENCES recovery.guilds (id),
        restore_job_id uuid NOT NULL REFERENCES recovery.restore_jobs (id),
        paused_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      ALTER TABLE recovery.restore_jobs
        ADD COLUMN pre_restore_snapshot_id uuid,
        ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN cancel_requested_at timestamptz`,
    `CREATE INDEX restore_jobs_guild_idx ON recovery.restore_jobs (guild_id, created_at DESC)`,
  ];

  protected readonly downStatements = [
    `DROP INDEX recovery.restore_jobs_guild_idx`,
    `
      ALTER TABLE recovery.restore_jobs
        DROP COLUMN cancel_requested_at, DROP COLUMN warnings, DROP COLUMN pre_restore_snapshot_id`,
    `DROP TABLE recovery.live_sync_pauses`,
    `DROP TABLE recovery.platform_id_replacements`,
  ];
}
