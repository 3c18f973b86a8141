import { OutboxWriter } from '@lib/outbox';
import type { DataSource } from 'typeorm';
import { type AppProcess, startApp } from '../support/app-process';
import { openDataSource } from '../support/database';
import { paymentSucceeded } from '../support/events';
import { kafkaBroker } from '../support/infra';
import { waitFor } from '../support/wait';

/**
 * The backbone end to end across processes: billing commits an event with its state change,
 * billing's relay publishes it to Kafka, and the notifier process's audit consumer applies it.
 */
describe('event backbone across app processes', () => {
  let billing: AppProcess;
  let notifier: AppProcess;
  let dataSource: DataSource;
  const writer = new OutboxWriter('billing', 'billing');

  beforeAll(async () => {
    dataSource = await openDataSource();
    [billing, notifier] = await Promise.all([startApp('billing'), startApp('notifier')]);
  });

  afterAll(async () => {
    await Promise.all([billing?.stop(), notifier?.stop()]);
    await dataSource?.destroy();
  });

  async function auditedIds(ids: string[]): Promise<string[]> {
    const rows: { event_id: string }[] = await dataSource.query(
      'SELECT event_id FROM notification.audit_log WHERE event_id = ANY($1::uuid[])',
      [ids],
    );
    return rows.map((row) => row.event_id);
  }

  it('delivers a committed event to a consumer in another process, and nothing of a rolled-back one', async () => {
    let rolledBackId = '';
    await expect(
      dataSource.transaction(async (manager) => {
        rolledBackId = (await writer.append(manager, paymentSucceeded())).id;
        throw new Error('charge could not be stored');
      }),
    ).rejects.toThrow();
    const committed = await dataSource.transaction((manager) => writer.append(manager, paymentSucceeded()));

    await waitFor(
      'the audit row of the committed event',
      async () => (await auditedIds([committed.id])).length === 1,
    );
    const [row] = await dataSource.query('SELECT * FROM notification.audit_log WHERE event_id = $1', [
      committed.id,
    ]);
    expect(row).toMatchObject({
      event_type: 'PaymentSucceeded',
      producer: 'billing',
      guild_id: committed.guild_id,
      payload: committed.payload,
    });
    expect(await auditedIds([rolledBackId])).toEqual([]);
    const outbox = await dataSource.query('SELECT 1 FROM billing.outbox WHERE id = $1', [rolledBackId]);
    expect(outbox).toEqual([]);
  });

  it('loses nothing while Kafka is down: events written during the outage arrive after it returns', async () => {
    await kafkaBroker('stop');
    const ids: string[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        const event = await dataSource.transaction((manager) => writer.append(manager, paymentSucceeded()));
        ids.push(event.id);
      }
      const [{ unsent }] = await dataSource.query(
        'SELECT count(*)::int AS unsent FROM billing.outbox WHERE id = ANY($1::uuid[]) AND sent_at IS NULL',
        [ids],
      );
      expect(unsent).toBe(50);
    } finally {
      await kafkaBroker('start');
    }
    await waitFor('all 50 events audited', async () => (await auditedIds(ids)).length === 50, {
      timeoutMs: 120_000,
    });
    const [{ applied }] = await dataSource.query(
      `SELECT count(*)::int AS applied FROM notification.processed_events WHERE consumer = 'audit' AND event_id = ANY($1)`,
      [ids],
    );
    expect(applied).toBe(50);
  });
});
