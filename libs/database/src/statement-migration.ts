import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A migration that is two fixed lists of statements: `upStatements` run in order to apply it,
 * `downStatements` to undo it. Most migrations are only that, so each one declares its statements
 * and this runs them (docs/architecture.md, "Data access"). A migration that looks before it acts (an
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
