import { StatementMigration } from '@lib/database';

/** Every request to the webhook endpoint, valid or not (docs/behaviour.md §2.8). */
export class WebhookEvents1764200000000 extends StatementMigration {
  name = 'WebhookEvents1764200000000';

  protected readonly upStatements = [
    `
      CREATE TABLE webhook.webhook_events (
        id uuid PRIMARY KEY,
        source text NOT NULL,
        -- Null when the body could not be parsed far enough to know it.
        external_event_id text,
        event_type text,
        signature text,
        signature_valid boolean NOT NULL,
        payload jsonb,
        -- The bytes as received, kept only when they are not JSON we could store as payload.
        raw_body bytea,
        body_bytes integer NOT NULL,
        processing_result text NOT NULL CHECK (processing_result IN ('pending', 'success', 'failed', 'duplicate')),
        processing_error text,
        -- What billing did with it: applied, already_applied, ignored; not_routed for unknown types.
        routing_outcome text,
        deliveries integer NOT NULL DEFAULT 1,
        reprocessed integer NOT NULL DEFAULT 0,
        duplicate_of uuid REFERENCES webhook.webhook_events (id),
        received_at timestamptz NOT NULL,
        processed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
    // The spec's uniqueness of (source, external_event_id), for the one row that carries an event's
    // processing. Duplicates are rows of their own, and a forged request must not block the real one.
    `
      CREATE UNIQUE INDEX webhook_events_once ON webhook.webhook_events (source, external_event_id)
       WHERE signature_valid AND processing_result <> 'duplicate' AND external_event_id IS NOT NULL`,
    `CREATE INDEX webhook_events_recent_idx ON webhook.webhook_events (source, created_at DESC, id DESC)`,
    `
      CREATE INDEX webhook_events_result_idx
          ON webhook.webhook_events (source, processing_result, created_at DESC, id DESC)`,
  ];

  protected readonly downStatements = [`DROP TABLE webhook.webhook_events`];
}
