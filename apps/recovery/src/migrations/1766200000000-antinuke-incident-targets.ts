import { StatementMigration } from '@lib/database';

/**
 * What a raider did to members, per incident: each member banned or kicked, and each
 * role stripped from a member (one row per role), so the incident view can show it and offer to
 * undo the raid. An audit-log entry (and role) is recorded once per incident, however often it is
 * reported. The incident's rows go with it.
 */
export class AntiNukeIncidentTargets1766200000000 extends StatementMigration {
  name = 'AntiNukeIncidentTargets1766200000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.antinuke_incident_targets (
        incident_id uuid NOT NULL REFERENCES recovery.antinuke_incidents (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('member_ban', 'member_kick', 'member_role_remove')),
        target_user_id text NOT NULL,
        role_id text,
        role_name text,
        audit_log_entry_id text NOT NULL,
        at timestamptz NOT NULL,
        CHECK ((kind = 'member_role_remove') = (role_id IS NOT NULL)),
        CONSTRAINT antinuke_incident_targets_entry_key
          UNIQUE NULLS NOT DISTINCT (incident_id, audit_log_entry_id, role_id)
      )`,
    `CREATE INDEX antinuke_incident_targets_incident_idx
       ON recovery.antinuke_incident_targets (incident_id, kind, at)`,
  ];

  protected readonly downStatements = [`DROP TABLE recovery.antinuke_incident_targets`];
}
