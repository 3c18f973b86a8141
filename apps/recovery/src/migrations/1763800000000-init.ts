import { StatementMigration } from '@lib/database';
import { processedEventsTableSql } from '@lib/messaging';
import { dropOutboxTableSql, outboxTableSql } from '@lib/outbox';

export class Init1763800000000 extends StatementMigration {
  name = 'Init1763800000000';

  protected readonly upStatements = [...outboxTableSql('recovery'), ...processedEventsTableSql('recovery')];

  protected readonly downStatements = [
    `DROP TABLE recovery.processed_events`,
    ...dropOutboxTableSql('recovery'),
  ];
}
