import type { DataSource } from 'typeorm';
import { type AppProcess, startApp } from '../support/app-process';
import { BillingStack } from '../support/billing-stack';
import { openDataSource } from '../support/database';
import { kafkaBroker } from '../support/infra';
import { skipNotifierBacklog } from '../support/notifier-backlog';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';
import { recordOutcome } from './support/fault-report';

const GUILDS_BEFORE = 6;
const GUILDS_DURING = 6;
const PRODUCERS = ['recovery', 'billing', 'licensing'] as const;

/**
 * The Kafka broker stopped and started again in the middle of a burst from every producer:
 * subscriptions (billing), the licences that follow them (licensing) and snapshots (recovery),
 * with licensing, recovery and the notifier consuming. Producers keep accepting work while the
 * broker is down (the outbox holds the events); once it is back, every event reaches every
 * consumer, and each effect happens once.
 */
describe('Kafka broker outage during a burst', () => {
  const stack = new BillingStack();
  let notifier: AppProcess;
  let dataSource: DataSource;
  let brokerDown = false;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    await skipNotifierBacklog(dataSource);
    notifier = await startApp('notifier', {
      DISCORD_API_URL: `${stack.platform.url}/api`,
      RECOVERY_URL: stack.recovery.url,
    });
  });

  afterAll(async () => {
    if (brokerDown) await kafkaBroker('start');
    await notifier?.stop();
    await stack.stop();
    await dataSource?.destroy();
  });

  const owner = () => stack.user(OWNER);

  async function subscribedGuild(name: string): Promise<string> {
    const { guildId } = await stack.registeredGuild(name);
    const confirmed = await stack.subscribe(owner(), guildId);
    if (confirmed.status !== 200) throw new Error(`subscribe: ${JSON.stringify(confirmed)}`);
    return guildId;
  }

  async function licensed(guildIds: string[]): Promise<boolean> {
    const [{ count }] = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM licensing.licenses l JOIN licensing.plans p ON p.id = l.plan_id
        WHERE l.guild_id = ANY($1::uuid[]) AND p.code = 'PRO'`,
      [guildIds],
    );
    return count === guildIds.length;
  }

  /** Every event the producers committed for these guilds, by producer. */
  async function produced(guildIds: string[]) {
    const events: { id: string; type: string; producer: string }[] = [];
    for (const producer of PRODUCERS) {
      const rows = await dataSource.query<{ id: string; event_type: string }[]>(
        `SELECT id::text, event_type FROM ${producer}.outbox WHERE envelope->>'guild_id' = ANY($1::text[])`,
        [guildIds],
      );
      events.push(...rows.map((row) => ({ id: row.id, type: row.event_type, producer })));
    }
    return events;
  }

  it('delivers every event to every consumer once the broker is back, each effect once', async () => {
    const before: string[] = [];
    for (let i = 0; i < GUILDS_BEFORE; i++) before.push(await subscribedGuild(`Kafka Before ${i}`));
    await waitFor('the first licences', () => licensed(before), { timeoutMs: 60_000 });

    await kafkaBroker('stop');
    brokerDown = true;
    // While the broker is down: new subscriptions, and snapshots of the guilds already on PRO.
    const during: string[] = [];
    for (let i = 0; i < GUILDS_DURING; i++) during.push(await subscribedGuild(`Kafka During ${i}`));
    const snapshots = await Promise.all(
      before.map((guildId) =>
        stack.call(stack.recovery, 'POST', `/api/v1/guilds/${guildId}/snapshots`, owner(), {
          description: 'taken while Kafka was down',
        }),
      ),
    );
    expect(snapshots.map((answer) => answer.status)).toEqual(before.map(() => 200));
    const unsentDuringOutage = (await produced([...before, ...during])).length;

    await kafkaBroker('start');
    brokerDown = false;
    const guilds = [...before, ...during];
    await waitFor('the licences of the guilds subscribed during the outage', () => licensed(during), {
      timeoutMs: 120_000,
    });

    // Every event, from every producer, in the notifier's audit log (it consumes every topic).
    const audited = await waitFor(
      'every event in the audit log',
      async () => {
        const events = await produced(guilds);
        const rows = await dataSource.query<{ event_id: string }[]>(
          `SELECT event_id::text FROM notification.audit_log WHERE event_id = ANY($1::uuid[])`,
          [events.map((event) => event.id)],
        );
        return rows.length === events.length ? { events, rows } : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    const { events } = audited;

    // Effects once: one licence change per subscription, one snapshot per request, billing events
    // consumed once by licensing and licensing events once by recovery.
    const upgrades = events.filter((event) => event.type === 'LicenseUpgraded').length;
    const [{ count: snapshotRows }] = await dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM recovery.snapshots WHERE guild_id = ANY($1::uuid[]) AND trigger = 'manual'`,
      [before],
    );
    const consumed = async (schema: string, producer: string) => {
      const ids = events.filter((event) => event.producer === producer).map((event) => event.id);
      const rows = await dataSource.query<{ event_id: string; times: number }[]>(
        `SELECT event_id::text, count(*)::int AS times FROM ${schema}.processed_events
          WHERE event_id = ANY($1::text[]) GROUP BY event_id`,
        [ids],
      );
      return rows;
    };
    const licensingConsumed = await consumed('licensing', 'billing');
    const recoveryConsumed = await consumed('recovery', 'licensing');

    const sent = events.length;
    const duplicated = Math.max(0, upgrades - guilds.length) + Math.max(0, snapshotRows - before.length);
    recordOutcome({
      fault: 'Kafka broker stopped and restarted',
      checked:
        'every event of 3 producers in the audit log; one licence change per subscription; one snapshot each',
      sent,
      delivered: audited.rows.length,
      duplicated,
      lost: sent - audited.rows.length,
      notes: `${unsentDuringOutage} events committed by the end of the outage; licensing applied ${licensingConsumed.length} billing events, recovery ${recoveryConsumed.length} licensing events`,
    });
    expect(upgrades).toBe(guilds.length);
    expect(snapshotRows).toBe(before.length);
  });
});
