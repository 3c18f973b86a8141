import { parseEnvelope } from './envelope.parser';

const valid = {
  id: '01934b5e-7c1a-7d2e-8f00-0123456789ab',
  type: 'SnapshotCreated',
  version: 1,
  occurred_at: '2026-11-22T00:00:00.000Z',
  producer: 'recovery',
  aggregate_type: 'snapshot',
  aggregate_id: 'x',
  guild_id: 'g',
  correlation_id: null,
  payload: {},
};

describe(parseEnvelope.name, () => {
  it('accepts a well-formed envelope', () => {
    expect(parseEnvelope(Buffer.from(JSON.stringify(valid)))).toEqual({ event: valid });
  });

  it.each([
    [null, 'empty message'],
    ['{not json', 'message is not JSON'],
    ['42', 'message is not an object'],
    [JSON.stringify({ ...valid, id: 'nope' }), 'missing or invalid id'],
    [JSON.stringify({ ...valid, type: 'Unknown' }), 'unknown event type "Unknown"'],
    [JSON.stringify({ ...valid, version: 2 }), 'unsupported envelope version'],
    [JSON.stringify({ ...valid, occurred_at: 'yesterday' }), 'missing or invalid occurred_at'],
    [JSON.stringify({ ...valid, payload: null }), 'missing payload'],
  ])('refuses %s', (raw, error) => {
    expect(parseEnvelope(raw)).toEqual({ error });
  });
});
