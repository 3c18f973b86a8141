import { StatementMigration } from '@lib/database';

/**
 * How long each plan keeps a guild's audit log (`notification.audit_log`): FREE 30 days, PRO 90,
 * ENTERPRISE 365. The spec names no figures; these follow the plans' order and the scheduled
 * snapshot retentions (a paid plan keeps more history), and a year on ENTERPRISE covers an annual
 * review. FREE's 30 days is the shortest, so it is the floor the notifier's retention looks past
 * (docs/behaviour.md §8). The notifier deletes an entry once it is older than its guild's plan's
 * figure.
 *
 * The default only fills the existing rows and is dropped after, so a plan added later must state
 * its retention.
 */
export class PlanAuditRetention1766400000001 extends StatementMigration {
  name = 'PlanAuditRetention1766400000001';

  protected readonly upStatements = [
    `
      ALTER TABLE licensing.plans
        ADD COLUMN audit_log_retention_days integer NOT NULL DEFAULT 30
          CHECK (audit_log_retention_days > 0)`,
    `UPDATE licensing.plans SET audit_log_retention_days = 90 WHERE code = 'PRO'`,
    `UPDATE licensing.plans SET audit_log_retention_days = 365 WHERE code = 'ENTERPRISE'`,
    `ALTER TABLE licensing.plans ALTER COLUMN audit_log_retention_days DROP DEFAULT`,
  ];

  protected readonly downStatements = [`ALTER TABLE licensing.plans DROP COLUMN audit_log_retention_days`];
}
