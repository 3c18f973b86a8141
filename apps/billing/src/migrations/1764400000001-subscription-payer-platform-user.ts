import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payer's platform user id on the subscription, so its events name the DM's recipient and the
 * notifier never asks who that is. Subscriptions from before have none (null).
 */
export class SubscriptionPayerPlatformUser1764400000001 implements MigrationInterface {
  name = 'SubscriptionPayerPlatformUser1764400000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE billing.subscriptions ADD COLUMN payer_platform_user_id text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE billing.subscriptions DROP COLUMN payer_platform_user_id`);
  }
}
