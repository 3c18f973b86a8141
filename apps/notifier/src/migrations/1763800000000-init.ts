import { StatementMigration } from '@lib/database';
import { processedEventsTableSql } from '@lib/messaging';

export class Init1763800000000 extends StatementMigration {
  name = 'Init1763800000000';

  protected readonly upStatements = [
    ...processedEventsTableSql('notification'),
    `
      CREATE TABLE notification.audit_log (
        event_id uuid PRIMARY KEY,
        event_type text NOT NULL,
        producer text NOT NULL,
        guild_id text NOT NULL,
        aggregate_type text NOT NULL,
        aggregate_id text NOT NULL,
        occurred_at timestamptz NOT NULL,
        correlation_id text,
        payload jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`,
    `CREATE INDEX audit_log_guild_idx ON notification.audit_log (guild_id, occurred_at DESC, event_id DESC)`,
  ];

  protected readonly downStatements = [
    `DROP TABLE notification.audit_log`,
    `DROP TABLE notification.processed_events`,
  ];
}
