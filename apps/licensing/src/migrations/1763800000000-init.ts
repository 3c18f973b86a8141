import { StatementMigration } from '@lib/database';
import { processedEventsTableSql } from '@lib/messaging';
import { dropOutboxTableSql, outboxTableSql } from '@lib/outbox';

export class Init1763800000000 extends StatementMigration {
  name = 'Init1763800000000';

  protected readonly upStatements = [...outboxTableSql('licensing'), ...processedEventsTableSql('licensing')];

  protected readonly downStatements = [
    `DROP TABLE licensing.processed_events`,
    ...dropOutboxTableSql('licensing'),
  ];
}
