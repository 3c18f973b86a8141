import { StatementMigration } from '@lib/database';
import { dropOutboxTableSql, outboxTableSql } from '@lib/outbox';

export class Init1763800000000 extends StatementMigration {
  name = 'Init1763800000000';

  protected readonly upStatements = outboxTableSql('billing');

  protected readonly downStatements = dropOutboxTableSql('billing');
}
