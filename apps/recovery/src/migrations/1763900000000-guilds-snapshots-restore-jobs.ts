import { StatementMigration } from '@lib/database';

/** The guild registry, snapshots, and restore jobs (only their one-active-job rule matters here yet). */
export class GuildsSnapshotsRestoreJobs1763900000000 extends StatementMigration {
  name = 'GuildsSnapshotsRestoreJobs1763900000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.guilds (
        id uuid PRIMARY KEY,
        platform_guild_id text NOT NULL UNIQUE CHECK (platform_guild_id ~ '^[0-9]{1,20}$'),
        name text NOT NULL,
        owner_platform_user_id text NOT NULL,
        bot_installed_at timestamptz,
        removed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      CREATE TABLE recovery.snapshots (
        id uuid PRIMARY KEY,
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id),
        payload jsonb NOT NULL,
        payload_size integer NOT NULL CHECK (payload_size > 0 AND payload_size <= 5242880),
        trigger text NOT NULL CHECK (trigger IN ('manual', 'scheduled', 'antinuke', 'pre_restore')),
        created_by_user uuid,
        created_by_platform_user_id text,
        description text CHECK (char_length(description) <= 500),
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (trigger <> 'scheduled' OR created_by_user IS NULL)
      )`,
    `CREATE INDEX snapshots_guild_idx ON recovery.snapshots (guild_id, created_at DESC, id DESC)`,
    `CREATE INDEX snapshots_retention_idx ON recovery.snapshots (trigger, created_at) WHERE trigger <> 'manual'`,
    `
      CREATE TABLE recovery.restore_jobs (
        id uuid PRIMARY KEY,
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id),
        snapshot_id uuid NOT NULL,
        requested_by_user uuid NOT NULL,
        scope text[] NOT NULL,
        options jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'canceled')),
        preview_diff jsonb NOT NULL,
        engine_workflow_id text,
        error_message text,
        result_summary jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz
      )`,
    // One restore per guild at a time (docs/behaviour.md §8), enforced by the database under concurrent starts.
    `CREATE UNIQUE INDEX restore_jobs_one_active_per_guild ON recovery.restore_jobs (guild_id)
        WHERE status IN ('pending', 'running')`,
    `
      CREATE TABLE recovery.scheduled_snapshot_runs (
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id),
        run_date date NOT NULL,
        due_at timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'skipped', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        snapshot_id uuid,
        last_error text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (guild_id, run_date)
      )`,
    `CREATE INDEX scheduled_snapshot_runs_due_idx ON recovery.scheduled_snapshot_runs (next_attempt_at)
        WHERE status = 'pending'`,
  ];

  protected readonly downStatements = [
    `DROP TABLE recovery.scheduled_snapshot_runs`,
    `DROP TABLE recovery.restore_jobs`,
    `DROP TABLE recovery.snapshots`,
    `DROP TABLE recovery.guilds`,
  ];
}
