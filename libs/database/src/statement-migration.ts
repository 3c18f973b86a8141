import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A migration that is two fixed lists of statements: `upStatements` run in order to apply it,
 * `downStatements` to undo it. Most migrations are only that, so each one declares its statements
 * and this runs them (docs/decisions/data-access.md). A migration that looks before it acts (an
 * index build a failed run may have left invalid) implements `MigrationInterface` itself.
 *
 * The statements of a committed migration never change: test/deploy/migration-history.spec.ts.
 */
export abstract class StatementMigration implements MigrationInterface {
  /** The class name, timestamp last, as TypeORM records it in the `migrations` table. */
  abstract readonly name: string;
  protected abstract readonly upStatements: readonly string[];
  protected abstract readonly downStatements: readonly string[];

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of this.upStatements) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of this.downStatements) await queryRunner.query(sql);
  }
}

/** An index a ConcurrentIndexMigration builds: where, its name, and what follows `ON`. */
export interface ConcurrentIndex {
  schema: string;
  name: string;
  /** `table (columns) [WHERE ...]`, the table without its schema. */
  on: string;
}

/**
 * A migration that adds indexes to tables in use, each built CONCURRENTLY, outside a transaction,
 * so that writes go on while it builds (a plain CREATE INDEX blocks them for the whole build: on a
 * table of millions of rows, seconds to minutes of consumers, relays or webhooks waiting). A build
 * that failed halfway leaves an invalid index behind; it is dropped and built again.
 *
 * sql-placement-exempt: schema changes run by migrations, no data access.
 */
export abstract class ConcurrentIndexMigration implements MigrationInterface {
  abstract readonly name: string;
  readonly transaction = false;
  protected abstract readonly indexes: readonly ConcurrentIndex[];

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { schema, name, on } of this.indexes) {
      const invalid = (await queryRunner.query(
        `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                                 JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relname = $2 AND NOT i.indisvalid`,
        [schema, name],
      )) as unknown[];
      if (invalid.length > 0) await queryRunner.query(`DROP INDEX CONCURRENTLY "${schema}"."${name}"`);
      await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON "${schema}".${on}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { schema, name } of [...this.indexes].reverse()) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${schema}"."${name}"`);
    }
  }
}
