import { StatementMigration } from '@lib/database';

/**
 * The payer's platform user id on the subscription, so its events name the DM's recipient and the
 * notifier never asks who that is. Subscriptions from before have none (null).
 */
export class SubscriptionPayerPlatformUser1764400000001 extends StatementMigration {
  name = 'SubscriptionPayerPlatformUser1764400000001';

  protected readonly upStatements = [
    `ALTER TABLE billing.subscriptions ADD COLUMN payer_platform_user_id text`,
  ];

  protected readonly downStatements = [
    `ALTER TABLE billing.subscriptions DROP COLUMN payer_platform_user_id`,
  ];
}
