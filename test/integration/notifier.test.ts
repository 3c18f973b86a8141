import type { DomainEvent, EventPayloads, EventType, RestoreCancelReason } from '@lib/contracts';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { type AppProcess, startApp } from '../support/app-process';
import { openDataSource } from '../support/database';
import { skipNotifierBacklog } from '../support/notifier-backlog';
import { envelope, type SampleParties, samplePayloads, TestEventPublisher } from '../support/event-samples';
import { RecoveryStack } from '../support/recovery-stack';
import { OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

/** Long enough for several sender passes (poll 100 ms) and a retry (base 300 ms) to have happened. */
const SETTLE_MS = 1_500;

/**
 * The notifier as a process of its own, fed through Kafka exactly as the relays feed it, sending DMs
 * to the fake chat platform through the real REST client; recovery answers its MANAGE_GUILD checks.
 */
describe('notifier: DMs, preferences and the audit log', () => {
  const stack = new RecoveryStack();
  const events = new TestEventPublisher();
  let notifier: AppProcess;
  let dataSource: DataSource;
  let nextUser = 500_000_000_000_000_000n;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await skipNotifierBacklog(dataSource);
    await stack.start();
    notifier = await startApp('notifier', {
      DISCORD_API_URL: `${stack.platform.url}/api`,
      RECOVERY_URL: stack.recovery.url,
      DM_POLL_INTERVAL_MS: '100',
      DM_RETRY_BASE_MS: '300',
      DM_MAX_ATTEMPTS: '4',
      TEST_DM_INTERVAL_SECONDS: '60',
      LOG_LEVEL: process.env.NOTIFIER_LOG_LEVEL ?? 'warn',
    });
  });

  afterAll(async () => {
    if (process.env.NOTIFIER_LOG_LEVEL) console.log(notifier?.output().slice(-20000));
    await notifier?.stop();
    await events.close();
    await stack.stop();
    await dataSource?.destroy();
  });

  /** A user of our own on the platform, so nobody else's DMs get in the way. */
  function parties(guildId: string = uuidv7()): SampleParties {
    const platformUserId = String(nextUser++);
    stack.platform.addUser(platformUserId);
    return { guildId, guildName: `Guild ${platformUserId.slice(-4)}`, userId: uuidv7(), platformUserId };
  }

  function dmsTo(platformUserId: string) {
    return stack.platform.dmLog().filter((dm) => dm.recipientId === platformUserId);
  }

  async function notifications(eventIds: string[]) {
    return dataSource.query<
      { event_id: string; template: string; status: string; attempts: number; last_error: string | null }[]
    >(
      `SELECT event_id, template, status, attempts, last_error FROM notification.notifications
        WHERE event_id = ANY($1::uuid[])`,
      [eventIds],
    );
  }

  function messagePostsFor(channelId: string): number {
    return stack.platform
      .requestLog()
      .filter((request) => request.method === 'POST' && request.path === `/channels/${channelId}/messages`)
      .length;
  }

  it('sends each event the DM it calls for, once, however often the event is delivered', async () => {
    const cases: { type: EventType; who: SampleParties; expect: string; event: DomainEvent }[] = [];
    const add = (
      type: EventType,
      expect: string,
      mutate: (event: DomainEvent, who: SampleParties) => void = () => undefined,
    ) => {
      const who = parties();
      const event = envelope(type, who.guildId, samplePayloads(who)[type]);
      mutate(event, who);
      cases.push({ type, who, expect, event });
    };
    /** A RestoreCanceled of the sample restore, for `reason`. */
    const canceled = (reason: RestoreCancelReason) => (event: DomainEvent, who: SampleParties) => {
      const {
        status: _status,
        error_code: _code,
        error_message: _message,
        ...restore
      } = samplePayloads(who).RestoreFailed;
      event.payload = { ...restore, reason, pre_restore_snapshot_requested: false };
    };
    add('RestoreCompleted', '서버 복구가 끝났습니다. (소요 시간 1분 23초)');
    add('RestoreFailed', '사유: Missing Permissions');
    add('RestoreCanceled', '복구 도중 삭제되어', canceled('guild_deleted'));
    // As an older release published it: a RestoreFailed with status `canceled`.
    add('RestoreFailed', '복구 도중 삭제되어', (event) =>
      Object.assign(event.payload, {
        status: 'canceled',
        error_code: 'guild_deleted',
        error_message: 'guild deleted',
      }),
    );
    add('SnapshotCreated', '스냅샷을 만들었습니다');
    add('SubscriptionStarted', '결제 금액: 9,900원');
    add('PlanUpgraded', '플랜이 Pro에서 Enterprise(으)로 바뀌었습니다');
    add('SubscriptionCanceled', '구독 해지가 예약되었습니다');
    add('SubscriptionCanceledPeriodEnd', '예약하신 대로 종료되었습니다');
    add('AntiNukeIncidentOpened', '채널 삭제 3회');
    const silent = parties();
    const scheduled = envelope('SnapshotCreated', silent.guildId, {
      ...samplePayloads(silent).SnapshotCreated,
      trigger: 'scheduled',
      created_by_platform_user_id: null,
    });
    // A user's own cancel: they were there, no DM.
    const userCancel = envelope('RestoreCanceled', silent.guildId, {} as EventPayloads['RestoreCanceled']);
    canceled('user')(userCancel, silent);
    const all = [...cases.map((c) => c.event), scheduled, userCancel];

    // Redelivery: every event twice in one batch, then all of them again in another.
    await events.publish([...all, ...all]);
    await events.publish(all);

    await waitFor('every DM sent', async () => {
      const rows = await notifications(all.map((e) => e.id));
      return rows.length === cases.length && rows.every((row) => row.status === 'sent');
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await events.publish([cases[0].event]);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

    for (const c of cases) {
      const dms = dmsTo(c.who.platformUserId);
      expect({ type: c.type, count: dms.length }).toEqual({ type: c.type, count: 1 });
      expect(dms[0].content).toContain(c.expect);
      expect(dms[0].content).toContain(c.who.guildName);
    }
    expect(dmsTo(silent.platformUserId)).toEqual([]);
    const rows = await notifications(all.map((e) => e.id));
    expect(rows).toHaveLength(cases.length);
    expect(rows.map((row) => row.template).sort()).toEqual(
      [
        'antinuke.incident',
        'plan.upgraded',
        'restore.completed',
        'restore.failed',
        'restore.guild_deleted',
        'restore.guild_deleted',
        'snapshot.created',
        'subscription.cancel_scheduled',
        'subscription.ended',
        'subscription.started',
      ].sort(),
    );
  });

  it('keeps payment DMs from a payer who turned them off, and only those', async () => {
    const payer = parties();
    const identity = { ...stack.user(payer.platformUserId), user_id: payer.userId };
    const path = '/api/v1/me/notification-preferences';

    expect((await stack.call(notifier, 'GET', path, identity)).body).toEqual({
      payment_notifications: true,
      restore_notifications: true,
      incident_notifications: true,
      updated_at: null,
    });
    const put = await stack.call(notifier, 'PUT', path, identity, { payment_notifications: false });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ payment_notifications: false });
    expect((await stack.call(notifier, 'GET', path, identity)).body).toMatchObject({
      payment_notifications: false,
    });

    const payloads = samplePayloads(payer);
    const started = envelope('SubscriptionStarted', payer.guildId, payloads.SubscriptionStarted);
    const upgraded = envelope('PlanUpgraded', payer.guildId, payloads.PlanUpgraded);
    await events.publish([started, upgraded]);

    await waitFor(
      'both events handled',
      async () => (await notifications([started.id, upgraded.id])).length === 2,
    );
    await waitFor('the upgrade DM', () => dmsTo(payer.platformUserId).length === 1);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const dms = dmsTo(payer.platformUserId);
    expect(dms).toHaveLength(1);
    expect(dms[0].content).toContain('플랜이');
    const rows = await notifications([started.id]);
    expect(rows).toEqual([
      expect.objectContaining({ template: 'subscription.started', status: 'suppressed', attempts: 0 }),
    ]);
  });

  it('keeps restore and incident DMs from a user who turned them off, and sends the rest', async () => {
    const owner = parties();
    const identity = { ...stack.user(owner.platformUserId), user_id: owner.userId };
    const path = '/api/v1/me/notification-preferences';
    const put = await stack.call(notifier, 'PUT', path, identity, {
      payment_notifications: true,
      restore_notifications: false,
      incident_notifications: false,
    });
    expect(put.body).toMatchObject({ restore_notifications: false, incident_notifications: false });
    // A client that knows only the payment switch leaves the others as they are.
    await stack.call(notifier, 'PUT', path, identity, { payment_notifications: false });
    expect((await stack.call(notifier, 'GET', path, identity)).body).toMatchObject({
      payment_notifications: false,
      restore_notifications: false,
      incident_notifications: false,
    });

    const payloads = samplePayloads(owner);
    const restored = envelope('RestoreCompleted', owner.guildId, payloads.RestoreCompleted);
    // The incident names the owner by platform id only: found through the id saved with the preferences.
    const incident = envelope('AntiNukeIncidentOpened', owner.guildId, payloads.AntiNukeIncidentOpened);
    const snapshot = envelope('SnapshotCreated', owner.guildId, payloads.SnapshotCreated);
    await events.publish([restored, incident, snapshot]);

    await waitFor('the snapshot DM sent', async () => {
      const rows = await notifications([restored.id, incident.id, snapshot.id]);
      return (
        rows.length === 3 && rows.some((row) => row.template === 'snapshot.created' && row.status === 'sent')
      );
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const rows = await notifications([restored.id, incident.id, snapshot.id]);
    expect(rows.map((row) => `${row.template}:${row.status}`).sort()).toEqual([
      'antinuke.incident:suppressed',
      'restore.completed:suppressed',
      'snapshot.created:sent',
    ]);
    const dms = dmsTo(owner.platformUserId);
    expect(dms).toHaveLength(1);
    expect(dms[0].content).toContain('스냅샷을 만들었습니다');
  });

  it('sends a test DM at once, one per interval, and answers a refused DM with a problem', async () => {
    const who = parties();
    const identity = { ...stack.user(who.platformUserId), user_id: who.userId };
    const path = '/api/v1/me/notification-preferences/test-dm';
    await stack.call(notifier, 'PUT', '/api/v1/me/notification-preferences', identity, {
      payment_notifications: true,
      restore_notifications: false,
      incident_notifications: true,
    });

    const sent = await stack.call(notifier, 'POST', path, identity);
    expect(sent.status).toBe(200);
    expect(sent.body.content).toContain('테스트 메시지');
    expect(sent.body.content).toContain('지금 받는 알림: 결제, AntiNuke 경보');
    const dms = dmsTo(who.platformUserId);
    expect(dms).toHaveLength(1);
    expect(dms[0].content).toBe(sent.body.content);
    expect(sent.body.platform_message_id).toBe(dms[0].messageId);

    const again = await stack.call(notifier, 'POST', path, identity);
    expect(again.status).toBe(429);
    expect(again.contentType).toContain('application/problem+json');
    expect(again.body).toMatchObject({ code: 'ErrRateLimited' });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(dmsTo(who.platformUserId)).toHaveLength(1);

    const closed = parties();
    stack.platform.setDmsClosed(closed.platformUserId, true);
    const refused = await stack.call(notifier, 'POST', path, {
      ...stack.user(closed.platformUserId),
      user_id: closed.userId,
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'ErrDmRefused', title: 'The chat platform refused the DM' });
    expect(refused.body.detail).toContain('privacy settings');
    expect(dmsTo(closed.platformUserId)).toEqual([]);

    expect((await stack.call(notifier, 'POST', path, null)).status).toBe(401);
  });

  it('tells the payer which card another subscription is charged on after a new card, once', async () => {
    const payer = parties();
    const changed = envelope('SubscriptionCardChanged', payer.guildId, {
      subscription_id: uuidv7(),
      license_id: uuidv7(),
      billing_key_id: uuidv7(),
      payer_user_id: payer.userId,
      payer_platform_user_id: payer.platformUserId,
      guild_name: payer.guildName,
      plan_code: 'ENTERPRISE',
      card_company: '현대',
      card_last4: '567*',
      previous_card_last4: '123*',
    });
    await events.publish([changed, changed]);
    await waitFor('the card DM sent', async () => (await notifications([changed.id]))[0]?.status === 'sent');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const dms = dmsTo(payer.platformUserId);
    expect(dms).toHaveLength(1);
    expect(dms[0].content).toContain(
      `**${payer.guildName}** 서버의 Enterprise 구독 결제 카드가 바뀌었습니다`,
    );
    expect(dms[0].content).toContain('현대카드 ****567*');
    expect(await notifications([changed.id])).toEqual([
      expect.objectContaining({ template: 'subscription.card_changed', status: 'sent' }),
    ]);
  });

  it('answers bad preference requests with a problem, and strangers with 401', async () => {
    const user = stack.user(parties().platformUserId);
    const path = '/api/v1/me/notification-preferences';
    const wrongType = await stack.call(notifier, 'PUT', path, user, { payment_notifications: 'no' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.contentType).toContain('application/problem+json');
    expect(wrongType.body).toMatchObject({ code: 'ErrValidation' });
    expect((await stack.call(notifier, 'PUT', path, user, '{"payment_notifications":')).status).toBe(400);
    expect((await stack.call(notifier, 'PUT', path, user, {})).status).toBe(400);
    expect((await stack.call(notifier, 'GET', path, user)).body).toMatchObject({ updated_at: null });
    expect((await stack.call(notifier, 'GET', path, null)).status).toBe(401);
  });

  it('records a DM to a user who blocks DMs (50007) as undeliverable and never tries it again', async () => {
    const who = parties();
    stack.platform.setDmsClosed(who.platformUserId, true);
    const event = envelope('SnapshotCreated', who.guildId, samplePayloads(who).SnapshotCreated);
    await events.publish([event]);

    await waitFor(
      'the DM given up',
      async () => (await notifications([event.id]))[0]?.status === 'undeliverable',
    );
    const channelId = stack.platform.dmChannelOf(who.platformUserId)!;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const [row] = await notifications([event.id]);
    expect(row).toMatchObject({ status: 'undeliverable', attempts: 1 });
    expect(row.last_error).toContain('50007');
    expect(messagePostsFor(channelId)).toBe(1);
    expect(dmsTo(who.platformUserId)).toEqual([]);
  });

  it('retries a DM through a platform outage with backoff and sends it once', async () => {
    const who = parties();
    // Enough 503s on this user's DM channel that the REST client's own retries (4 tries) run out
    // and the sender has to come back later.
    const channelId = stack.platform.openDm(who.platformUserId);
    stack.platform.injectFailure({
      method: 'POST',
      path: `/channels/${channelId}/messages`,
      status: 503,
      times: 6,
    });
    const event = envelope('RestoreCompleted', who.guildId, samplePayloads(who).RestoreCompleted);
    await events.publish([event]);

    await waitFor(
      'the DM sent after the outage',
      async () => (await notifications([event.id]))[0]?.status === 'sent',
      {
        timeoutMs: 30_000,
      },
    );
    const [row] = await notifications([event.id]);
    expect(row.attempts).toBeGreaterThan(1);
    expect(row.last_error).toBeNull();
    expect(dmsTo(who.platformUserId)).toHaveLength(1);
  });

  it('puts a dropped downgrade in the audit log once, and sends no DM for it (audit only, like the schedule)', async () => {
    const { guildId } = await stack.registeredGuild(`Drop ${uuidv7().slice(-6)}`);
    const payer = parties(guildId);
    const dropped = envelope('PlanDowngradeCanceled', guildId, samplePayloads(payer).PlanDowngradeCanceled);
    await events.publish([dropped, dropped]);
    await events.publish([dropped]);

    await waitFor('the entry', async () => {
      const rows = await dataSource.query('SELECT 1 FROM notification.audit_log WHERE event_id = $1', [
        dropped.id,
      ]);
      return rows.length === 1;
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const page = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?event_type=PlanDowngradeCanceled`,
      stack.user(OWNER),
    );
    expect(page.status).toBe(200);
    expect(page.body.items).toEqual([
      expect.objectContaining({
        event_id: dropped.id,
        event_type: 'PlanDowngradeCanceled',
        producer: 'billing',
        payload: expect.objectContaining({
          requested_by_user: payer.userId,
          plan_code: 'ENTERPRISE',
          dropped_plan_code: 'PRO',
        }) as unknown,
      }),
    ]);
    expect(await notifications([dropped.id])).toEqual([]);
    expect(dmsTo(payer.platformUserId)).toEqual([]);
  });

  it('appends every event to the guild audit log and shows it to its administrators, page by page', async () => {
    const { guildId } = await stack.registeredGuild(`Audit ${uuidv7().slice(-6)}`);
    const who = parties(guildId);
    const payloads = samplePayloads(who);
    const all = (Object.keys(payloads) as EventType[]).map((type) =>
      envelope(type, guildId, payloads[type] as never),
    );
    const elsewhere = envelope('PaymentSucceeded', uuidv7(), payloads.PaymentSucceeded);
    await events.publish([...all, elsewhere, ...all]);

    await waitFor('every event audited', async () => {
      const [{ count }] = await dataSource.query<{ count: number }[]>(
        'SELECT count(*)::int AS count FROM notification.audit_log WHERE event_id = ANY($1::uuid[])',
        [all.map((e) => e.id)],
      );
      return count === all.length;
    });

    const owner = stack.user(OWNER);
    const seen: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=5${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await stack.call(notifier, 'GET', `/api/v1/guilds/${guildId}/audit-log${query}`, owner);
      expect(page.status).toBe(200);
      seen.push(...(page.body.items as Record<string, unknown>[]));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    // Ours, each once, across pages; the guild's own registration events are there too.
    const ids = seen.map((item) => item.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(all.map((e) => e.id)));
    expect(ids).not.toContain(elsewhere.id);
    expect(new Set(seen.map((item) => item.event_type))).toEqual(new Set(Object.keys(payloads)));
    const times = seen.map((item) => item.occurred_at as string);
    expect(times).toEqual([...times].sort().reverse());
    const keyIssued = seen.find((item) => item.event_type === 'BillingKeyIssued');
    expect(keyIssued?.payload).not.toHaveProperty('card_last4');
    expect(keyIssued?.payload).toMatchObject({ subscription_id: payloads.BillingKeyIssued.subscription_id });

    const filtered = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?event_type=RestoreCompleted`,
      owner,
    );
    expect((filtered.body.items as { event_id: string }[]).map((item) => item.event_id)).toEqual([
      all.find((e) => e.type === 'RestoreCompleted')!.id,
    ]);
    // Dates: from is inclusive, to exclusive; an empty window is empty, a backwards one a problem.
    const firstAt = all[0].occurred_at;
    const since = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?limit=200&from=${encodeURIComponent(firstAt)}`,
      owner,
    );
    expect((since.body.items as { event_id: string }[]).map((item) => item.event_id)).toEqual(
      expect.arrayContaining(all.map((e) => e.id)),
    );
    const before = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?limit=200&to=${encodeURIComponent(firstAt)}`,
      owner,
    );
    const beforeIds = (before.body.items as { event_id: string; occurred_at: string }[]).map(
      (i) => i.event_id,
    );
    expect(beforeIds).not.toContain(all[0].id);
    expect(before.body.items).toEqual(
      (before.body.items as { occurred_at: string }[]).filter((item) => item.occurred_at < firstAt),
    );
    const typedAndDated = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?event_type=RestoreCompleted&from=${encodeURIComponent(firstAt)}&to=2999-01-01T00:00:00Z`,
      owner,
    );
    expect((typedAndDated.body.items as { event_id: string }[]).map((item) => item.event_id)).toEqual([
      all.find((e) => e.type === 'RestoreCompleted')!.id,
    ]);
    const future = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?from=2999-01-01T00:00:00Z`,
      owner,
    );
    expect(future.body).toEqual({ items: [], next_cursor: null });
    const backwards = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`,
      owner,
    );
    expect(backwards.status).toBe(400);
    expect(backwards.body).toMatchObject({ code: 'ErrValidation', errors: [{ field: 'to' }] });
    const notADate = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?from=yesterday`,
      owner,
    );
    expect(notADate.status).toBe(400);
    expect(notADate.body).toMatchObject({ code: 'ErrValidation' });
    const notAType = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?event_type=Nope`,
      owner,
    );
    expect(notAType.status).toBe(400);

    const stranger = stack.user('300000000000000077');
    stack.platform.addUser('300000000000000077');
    const forbidden = await stack.call(notifier, 'GET', `/api/v1/guilds/${guildId}/audit-log`, stranger);
    expect(forbidden.status).toBe(403);
    expect(JSON.stringify(forbidden.body)).not.toContain(all[0].id);
    expect((await stack.call(notifier, 'GET', `/api/v1/guilds/${guildId}/audit-log`, null)).status).toBe(401);
    const badCursor = await stack.call(
      notifier,
      'GET',
      `/api/v1/guilds/${guildId}/audit-log?cursor=abc`,
      owner,
    );
    expect(badCursor.status).toBe(400);
    // An id that names no guild names none the owner manages: refused before anything is validated.
    expect(await stack.call(notifier, 'GET', `/api/v1/guilds/not-a-uuid/audit-log`, owner)).toMatchObject({
      status: 403,
      body: { code: 'ErrForbidden' },
    });
  });
});
