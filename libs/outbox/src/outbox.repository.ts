import type { Client } from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { outboxChannel } from './outbox.schema';

/** One outbox row as the writer inserts it. */
export interface OutboxInsert {
  id: string;
  topic: string;
  messageKey: string;
  eventType: string;
  /** The envelope as JSON text. */
  envelope: string;
}

/** One unsent row claimed by the relay; `envelope` is the JSON text, published as is. */
export interface ClaimedOutboxRow {
  id: string;
  topic: string;
  message_key: string;
  event_type: string;
  envelope: string;
}

/** The statements on a service's `<schema>.outbox` table, for the writer and the relay. */
export class OutboxRepository {
  constructor(private readonly schema: string) {}

  /** One multi-row INSERT in the caller's transaction. */
  async insert(manager: EntityManager, rows: readonly OutboxInsert[]): Promise<void> {
    if (rows.length === 0) return;
    const values: unknown[] = [];
    const tuples = rows.map((row, index) => {
      values.push(row.id, row.topic, row.messageKey, row.eventType, row.envelope);
      const p = index * 5;
      return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5})`;
    });
    await manager.query(
      `INSERT INTO "${this.schema}".outbox (id, topic, message_key, event_type, envelope) VALUES ${tuples.join(', ')}`,
      values,
    );
  }

  /** The oldest unsent rows, locked FOR UPDATE SKIP LOCKED in the runner's open transaction. */
  async claimUnsent(runner: QueryRunner, limit: number): Promise<ClaimedOutboxRow[]> {
    return (await runner.query(
      `SELECT id, topic, message_key, event_type, envelope::text AS envelope
         FROM "${this.schema}".outbox
        WHERE sent_at IS NULL
        ORDER BY seq
        LIMIT $1
        FOR UPDATE SKIP LOCKED`,
      [limit],
    )) as ClaimedOutboxRow[];
  }

  async markSent(runner: QueryRunner, ids: readonly string[]): Promise<void> {
    await runner.query(`UPDATE "${this.schema}".outbox SET sent_at = now() WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
  }

  /** How many committed events wait, and for how long the oldest has. */
  async backlog(dataSource: DataSource): Promise<{ unsent: number; oldestSeconds: number }> {
    const [row] = await dataSource.query<{ unsent: string; oldest_seconds: string | null }[]>(
      `SELECT count(*) AS unsent, extract(epoch FROM now() - min(created_at)) AS oldest_seconds
         FROM "${this.schema}".outbox WHERE sent_at IS NULL`,
    );
    return { unsent: Number(row.unsent), oldestSeconds: Number(row.oldest_seconds ?? 0) };
  }

  /** Deletes up to `limit` rows sent more than `hours` ago, oldest first, skipping rows held elsewhere. */
  async deleteSentBefore(dataSource: DataSource, hours: number, limit: number): Promise<number> {
    const [, deleted] = await dataSource.query<[unknown, number]>(
      `DELETE FROM "${this.schema}".outbox WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM "${this.schema}".outbox
          WHERE sent_at < now() - make_interval(hours => $1)
          ORDER BY sent_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED))`,
      [hours, limit],
    );
    return deleted;
  }

  /** LISTENs on the dedicated connection for the trigger's NOTIFY of committed inserts. */
  async listen(client: Client): Promise<void> {
    await client.query(`LISTEN "${outboxChannel(this.schema)}"`);
  }
}
