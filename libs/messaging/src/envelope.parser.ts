import { type DomainEvent, EVENT_ENVELOPE_VERSION, isEventType } from '@lib/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses a Kafka message value into an event, or says why it is not one. */
export function parseEnvelope(raw: Buffer | string | null): { event: DomainEvent } | { error: string } {
  if (raw === null) return { error: 'empty message' };
  let value: unknown;
  try {
    value = JSON.parse(raw.toString());
  } catch {
    return { error: 'message is not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { error: 'message is not an object' };
  const candidate = value as Record<string, unknown>;
  if (typeof candidate.id !== 'string' || !UUID.test(candidate.id)) return { error: 'missing or invalid id' };
  if (typeof candidate.type !== 'string' || !isEventType(candidate.type)) {
    return { error: `unknown event type ${JSON.stringify(candidate.type)}` };
  }
  if (candidate.version !== EVENT_ENVELOPE_VERSION) return { error: `unsupported envelope version` };
  if (typeof candidate.guild_id !== 'string') return { error: 'missing guild_id' };
  if (typeof candidate.occurred_at !== 'string' || Number.isNaN(Date.parse(candidate.occurred_at))) {
    return { error: 'missing or invalid occurred_at' };
  }
  if (typeof candidate.payload !== 'object' || candidate.payload === null)
    return { error: 'missing payload' };
  return { event: candidate as unknown as DomainEvent };
}
