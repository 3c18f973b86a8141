import type { DomainEvent } from '@lib/contracts';
import type { OutboxMessage } from '@lib/outbox';
import { v7 as uuidv7 } from 'uuid';
import type { EventProcessor } from './event-processor';

/**
 * Test fixtures of the in-process transport's specs (the bus, and the Nest server over it): an
 * outbox row as a relay hands it over, and a processor that records what reached it.
 */

/** An outbox row on `topic` holding a valid event, or `envelope` as it is (e.g. one that is no event). */
export function outboxMessage(topic: string, envelope?: string): OutboxMessage {
  const id = uuidv7();
  return {
    id,
    topic,
    key: 'guild-1',
    eventType: 'SnapshotCreated',
    envelope:
      envelope ??
      JSON.stringify({
        id,
        type: 'SnapshotCreated',
        version: 1,
        guild_id: 'guild-1',
        occurred_at: new Date().toISOString(),
        producer: 'recovery',
        payload: {},
      }),
  };
}

/**
 * A processor recording each batch it applied and each malformed message set aside; its first
 * `failures` batches fail as a database outage would.
 */
export function recordingProcessor(failures = 0) {
  const applied: DomainEvent[][] = [];
  const malformed: string[] = [];
  let calls = 0;
  const fake = {
    process: (events: readonly DomainEvent[]) => {
      calls += 1;
      if (calls <= failures) return Promise.reject(new Error('database down'));
      applied.push([...events]);
      return Promise.resolve();
    },
    recordMalformed: (_consumer: string, reference: string) => {
      malformed.push(reference);
      return Promise.resolve();
    },
  };
  return { applied, malformed, processor: fake as unknown as EventProcessor };
}
