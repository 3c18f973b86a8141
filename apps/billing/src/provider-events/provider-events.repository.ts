import { firstRow } from '@lib/database';
import type { ProviderEventOutcome } from '@lib/contracts';
import type { DataSource, EntityManager } from 'typeorm';

/** A `billing.provider_events` row: a provider event billing applied, and what applying it did. */
export interface AppliedProviderEventRow {
  event_id: string;
  event_type: string;
  outcome: ProviderEventOutcome['outcome'];
  detail: string;
  applied_at: Date;
}

/**
 * Billing's memory of the provider events it applied (migration 1765300000000), so that a
 * redelivered event is answered from the record rather than acted on again.
 */
export class ProviderEventsRepository {
  /** Until the transaction ends, other deliveries of this event wait here: the first one applies it. */
  async lockEvent(manager: EntityManager, eventId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`provider-event:${eventId}`]);
  }

  find(manager: EntityManager, eventId: string): Promise<AppliedProviderEventRow | null> {
    return firstRow<AppliedProviderEventRow>(
      manager,
      `SELECT * FROM billing.provider_events WHERE event_id = $1`,
      [eventId],
    );
  }

  /** Records what applying the event did, in the transaction of its effect. */
  async record(
    manager: EntityManager,
    event: { event_id: string; event_type: string },
    outcome: ProviderEventOutcome,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO billing.provider_events (event_id, event_type, outcome, detail) VALUES ($1, $2, $3, $4)`,
      [event.event_id, event.event_type, outcome.outcome, outcome.detail.slice(0, 1_000)],
    );
  }

  /**
   * Deletes up to `limit` records applied before `cutoff`, oldest first, skipping rows held
   * elsewhere (the batch form of docs/decisions/retention.md).
   */
  async deleteAppliedBefore(dataSource: DataSource, cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await dataSource.query<[unknown, number]>(
      `DELETE FROM billing.provider_events WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM billing.provider_events
          WHERE applied_at < $1
          ORDER BY applied_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED))`,
      [cutoff, limit],
    );
    return deleted;
  }
}

/** The answer to an event billing applied before: what it did then, and when. */
export function repeatOf(earlier: AppliedProviderEventRow): ProviderEventOutcome {
  return {
    // An event that was not ours then (or the provider did not confirm) still is not; one that acted
    // (or found its work done) has.
    outcome:
      earlier.outcome === 'ignored' || earlier.outcome === 'unconfirmed'
        ? earlier.outcome
        : 'already_applied',
    detail:
      `event ${earlier.event_id} was handled at ${earlier.applied_at.toISOString()}: ` +
      `${earlier.outcome} (${earlier.detail})`,
  };
}
