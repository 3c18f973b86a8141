import type { DomainEvent } from '@lib/contracts';
import type { DataSource, EntityManager } from 'typeorm';

/** `<schema>.processed_events`: which events each consumer has applied, or set aside as failed. */
export class ProcessedEventsRepository {
  constructor(private readonly schema: string) {}

  /**
   * Records the events as processed by `consumer` in the caller's transaction; returns the ids that
   * were not recorded before (the ones to apply now).
   */
  async claim(manager: EntityManager, consumer: string, events: readonly DomainEvent[]): Promise<string[]> {
    const claimed: { event_id: string }[] = await manager.query(
      `INSERT INTO "${this.schema}".processed_events (consumer, event_id, event_type)
       SELECT $1, id, type FROM unnest($2::text[], $3::text[]) AS e(id, type)
       ON CONFLICT DO NOTHING
       RETURNING event_id`,
      [consumer, events.map((e) => e.id), events.map((e) => e.type)],
    );
    return claimed.map((row) => row.event_id);
  }

  async recordFailure(
    dataSource: DataSource,
    failure: { consumer: string; eventId: string; eventType: string; error: string },
  ): Promise<void> {
    await dataSource.query(
      `INSERT INTO "${this.schema}".processed_events (consumer, event_id, event_type, status, error)
       VALUES ($1, $2, $3, 'failed', $4)
       ON CONFLICT DO NOTHING`,
      [failure.consumer, failure.eventId, failure.eventType, failure.error.slice(0, 2000)],
    );
  }

  /**
   * Deletes up to `limit` rows of applied events (`done`) recorded before `cutoff`, oldest first, in
   * one statement; rows another transaction holds are skipped. `failed` rows are kept: each is an
   * event set aside for an operator, and only a malformed event makes one.
   */
  async deleteDoneBefore(dataSource: DataSource, cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await dataSource.query<[unknown, number]>(
      `DELETE FROM "${this.schema}".processed_events WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM "${this.schema}".processed_events
          WHERE status = 'done' AND processed_at < $1
          ORDER BY processed_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED))`,
      [cutoff, limit],
    );
    return deleted;
  }
}
