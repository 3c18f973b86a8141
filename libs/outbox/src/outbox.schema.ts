/**
 * DDL of a service's outbox, used by that service's first migration. A statement trigger NOTIFYs
 * the relay at commit, so events leave within milliseconds instead of at the next poll.
 */
export function outboxTableSql(schema: string): string[] {
  return [
    `CREATE TABLE "${schema}".outbox (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      topic text NOT NULL,
      message_key text NOT NULL,
      event_type text NOT NULL,
      envelope jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    )`,
    `CREATE INDEX outbox_unsent_idx ON "${schema}".outbox (seq) WHERE sent_at IS NULL`,
    `CREATE INDEX outbox_sent_at_idx ON "${schema}".outbox (sent_at) WHERE sent_at IS NOT NULL`,
    `CREATE FUNCTION "${schema}".outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM pg_notify('${outboxChannel(schema)}', '');
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER outbox_notify AFTER INSERT ON "${schema}".outbox
       FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".outbox_notify()`,
  ];
}

export function dropOutboxTableSql(schema: string): string[] {
  return [`DROP TABLE "${schema}".outbox`, `DROP FUNCTION "${schema}".outbox_notify()`];
}

export function outboxChannel(schema: string): string {
  return `outbox_${schema}`;
}
