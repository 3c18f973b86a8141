import { StatementMigration } from '@lib/database';
import { dropKeyValueTableSql, keyValueTableSql } from '@lib/key-value';

/** Webhook idempotency keys when no REDIS_URL is set (standalone mode). */
export class KeyValues1764700000001 extends StatementMigration {
  name = 'KeyValues1764700000001';

  protected readonly upStatements = keyValueTableSql('webhook');

  protected readonly downStatements = dropKeyValueTableSql('webhook');
}
