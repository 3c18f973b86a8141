import { StatementMigration } from '@lib/database';

/** The DMs the notifier owes users, and what users told it they want. */
export class Notifications1764400000002 extends StatementMigration {
  name = 'Notifications1764400000002';

  protected readonly upStatements = [
    `
      CREATE TABLE notification.notification_preferences (
        user_id uuid PRIMARY KEY,
        payment_notifications boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
    // One row per DM an event calls for, written in the consumer's transaction; the sender works
    // through them. `suppressed`: the user turned that kind off; `undeliverable`: the platform
    // refused for good (DMs closed); `failed`: retries ran out.
    `
      CREATE TABLE notification.notifications (
        id uuid PRIMARY KEY,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        template text NOT NULL,
        guild_id text NOT NULL,
        recipient_platform_user_id text NOT NULL,
        recipient_user_id uuid,
        content text NOT NULL,
        status text NOT NULL
          CHECK (status IN ('pending', 'sent', 'suppressed', 'undeliverable', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz,
        last_error text,
        platform_message_id text,
        sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, template, recipient_platform_user_id)
      )`,
    `
      CREATE INDEX notifications_due_idx ON notification.notifications (next_attempt_at)
       WHERE status = 'pending'`,
  ];

  protected readonly downStatements = [
    `DROP TABLE notification.notifications`,
    `DROP TABLE notification.notification_preferences`,
  ];
}
