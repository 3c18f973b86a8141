import { StatementMigration } from '@lib/database';

/**
 * AntiNuke contains a raid: what the auto-action does besides the quarantine, and the owner's
 * opt-in to a lockdown on each incident; exactly what each quarantine took (written before it is
 * taken, so a retried quarantine records it once) and whether it was given back; and the guild's
 * lockdowns, each with what it changed on @everyone, at most one in force per guild.
 */
export class AntiNukeContainment1766630000000 extends StatementMigration {
  name = 'AntiNukeContainment1766630000000';

  protected readonly upStatements = [
    `
      ALTER TABLE recovery.antinuke_settings
        ADD COLUMN auto_action_mode text NOT NULL DEFAULT 'quarantine'
          CHECK (auto_action_mode IN ('quarantine', 'kick', 'ban')),
        ADD COLUMN auto_lockdown_enabled boolean NOT NULL DEFAULT false`,
    `
      CREATE TABLE recovery.antinuke_quarantines (
        incident_id uuid PRIMARY KEY,
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id) ON DELETE CASCADE,
        actor_platform_user_id text NOT NULL,
        roles_removed jsonb NOT NULL DEFAULT '[]',
        role_permissions_stripped jsonb NOT NULL DEFAULT '[]',
        member_removed text CHECK (member_removed IN ('kick', 'ban')),
        taken_at timestamptz NOT NULL DEFAULT now(),
        released_at timestamptz,
        released_by_user uuid,
        release_result jsonb
      )`,
    `CREATE INDEX antinuke_quarantines_guild_idx ON recovery.antinuke_quarantines (guild_id)`,
    `
      CREATE TABLE recovery.antinuke_lockdowns (
        id uuid PRIMARY KEY,
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id) ON DELETE CASCADE,
        state text NOT NULL CHECK (state IN ('starting', 'active', 'lifted')),
        started_at timestamptz NOT NULL DEFAULT now(),
        lockdown_until timestamptz NOT NULL,
        started_by_user uuid,
        incident_id uuid,
        everyone_permissions_before text,
        everyone_permissions_set text,
        send_messages_taken boolean NOT NULL DEFAULT false,
        invites_paused_until timestamptz,
        lifted_at timestamptz,
        lifted_by_user uuid,
        lift_reason text CHECK (lift_reason IN ('expired', 'user')),
        everyone_permissions_restored text,
        CHECK ((state = 'lifted') = (lifted_at IS NOT NULL))
      )`,
    // One lockdown per guild at a time.
    `CREATE UNIQUE INDEX antinuke_lockdowns_one_per_guild
       ON recovery.antinuke_lockdowns (guild_id) WHERE state <> 'lifted'`,
    `CREATE INDEX antinuke_lockdowns_due_idx
       ON recovery.antinuke_lockdowns (lockdown_until) WHERE state = 'active'`,
    `CREATE INDEX antinuke_lockdowns_guild_idx ON recovery.antinuke_lockdowns (guild_id, started_at DESC)`,
  ];

  protected readonly downStatements = [
    `DROP TABLE recovery.antinuke_lockdowns`,
    `DROP TABLE recovery.antinuke_quarantines`,
    `ALTER TABLE recovery.antinuke_settings DROP COLUMN auto_action_mode, DROP COLUMN auto_lockdown_enabled`,
  ];
}
