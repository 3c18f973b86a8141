import { StatementMigration } from '@lib/database';

/**
 * AntiNuke's per-guild setting (absent row = the defaults) and its incidents. An incident keeps
 * its snapshot id without a foreign key: antinuke snapshots expire after 7 days, incidents stay.
 */
export class AntiNuke1764600000000 extends StatementMigration {
  name = 'AntiNuke1764600000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.antinuke_settings (
        guild_id uuid PRIMARY KEY REFERENCES recovery.guilds (id),
        threshold integer NOT NULL DEFAULT 3 CHECK (threshold BETWEEN 2 AND 50),
        window_seconds integer NOT NULL DEFAULT 10 CHECK (window_seconds BETWEEN 1 AND 300),
        auto_action_enabled boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      CREATE TABLE recovery.antinuke_incidents (
        id uuid PRIMARY KEY,
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id),
        actor_platform_user_id text NOT NULL,
        action text NOT NULL CHECK (action IN ('channel_delete', 'role_delete', 'member_ban', 'member_kick')),
        count integer NOT NULL CHECK (count > 0),
        audit_log_entry_ids text[] NOT NULL DEFAULT '{}',
        first_action_at timestamptz NOT NULL,
        last_action_at timestamptz NOT NULL,
        snapshot_id uuid,
        snapshot_error text,
        auto_action_taken boolean NOT NULL DEFAULT false,
        auto_action_error text,
        opened_at timestamptz NOT NULL DEFAULT now(),
        CHECK (snapshot_id IS NULL OR snapshot_error IS NULL)
      )`,
    `CREATE INDEX antinuke_incidents_guild_idx ON recovery.antinuke_incidents (guild_id, opened_at DESC, id DESC)`,
  ];

  protected readonly downStatements = [
    `DROP TABLE recovery.antinuke_incidents`,
    `DROP TABLE recovery.antinuke_settings`,
  ];
}
