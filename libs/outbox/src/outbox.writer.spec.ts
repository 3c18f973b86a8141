import type { EntityManager } from 'typeorm';
import { OutboxWriter } from './outbox.writer';

function fakeManager(inTransaction: boolean) {
  const calls: { sql: string; params: unknown[] }[] = [];
  const manager = {
    queryRunner: { isTransactionActive: inTransaction },
    query: (sql: string, params: unknown[]) => {
      calls.push({ sql, params });
      return Promise.resolve([]);
    },
  } as unknown as EntityManager;
  return { manager, calls };
}

const event = {
  type: 'SnapshotCreated' as const,
  aggregate_type: 'snapshot',
  aggregate_id: 's-1',
  guild_id: 'g-1',
  payload: {
    snapshot_id: 's-1',
    guild_id: 'g-1',
    trigger: 'manual' as const,
    created_by_user: 'u-1',
    guild_name: 'Test guild',
    created_by_platform_user_id: null,
    size: 10,
  },
};

describe(OutboxWriter.name, () => {
  const sut = new OutboxWriter('recovery', 'recovery');

  it('writes the envelope to the service outbox, keyed by guild, on the producer topic', async () => {
    const { manager, calls } = fakeManager(true);
    const envelope = await sut.append(manager, event);
    expect(envelope).toMatchObject({
      type: 'SnapshotCreated',
      version: 1,
      producer: 'recovery',
      guild_id: 'g-1',
    });
    expect(envelope.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls).toHaveLength(1);
    expect(calls[0].sql).toContain('INSERT INTO "recovery".outbox');
    expect(calls[0].params.slice(0, 4)).toEqual([envelope.id, 'recovery.events', 'g-1', 'SnapshotCreated']);
    expect(JSON.parse(calls[0].params[4] as string)).toEqual(envelope);
  });

  it('refuses to write outside a transaction', async () => {
    const { manager, calls } = fakeManager(false);
    await expect(sut.append(manager, event)).rejects.toThrow('inside the transaction');
    expect(calls).toHaveLength(0);
  });

  it("refuses another service's event", async () => {
    const { manager } = fakeManager(true);
    await expect(new OutboxWriter('billing', 'billing').append(manager, event)).rejects.toThrow(
      'SnapshotCreated is produced by recovery, not billing',
    );
  });

  it('gives ids that sort by creation time (UUID v7)', async () => {
    const { manager } = fakeManager(true);
    const many = await sut.appendAll(
      manager,
      Array.from({ length: 50 }, () => event),
    );
    const ids = many.map((e) => e.id);
    expect([...ids].sort()).toEqual(ids);
  });
});
