import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * AntiNuke's on/off switch and the platform users a guild trusts (docs/behaviour.md §1.6). Existing
 * rows keep AntiNuke on with nobody exempt, as before. The list is bounded and each entry a
 * snowflake here too, so a write that skipped the API cannot store what a signal would refuse.
 */
export class AntiNukeSwitchAndExempt1765500000000 implements MigrationInterface {
  name = 'AntiNukeSwitchAndExempt1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE recovery.antinuke_settings
        ADD COLUMN enabled boolean NOT NULL DEFAULT true,
        ADD COLUMN exempt_user_ids text[] NOT NULL DEFAULT '{}'
          CONSTRAINT antinuke_settings_exempt_user_ids_check
          CHECK (cardinality(exempt_user_ids) <= 50
                 AND array_to_string(exempt_user_ids, ',') ~ '^([0-9]{17,20}(,[0-9]{17,20})*)?$')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE recovery.antinuke_settings DROP COLUMN exempt_user_ids, DROP COLUMN enabled`);
  }
}
