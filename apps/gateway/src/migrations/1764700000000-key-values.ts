import { StatementMigration } from '@lib/database';
import { dropKeyValueTableSql, keyValueTableSql } from '@lib/key-value';

/** Sessions, OAuth states and rate-limit counters when no REDIS_URL is set (standalone mode). */
export class KeyValues1764700000000 extends StatementMigration {
  name = 'KeyValues1764700000000';

  protected readonly upStatements = keyValueTableSql('identity');

  protected readonly downStatements = dropKeyValueTableSql('identity');
}
