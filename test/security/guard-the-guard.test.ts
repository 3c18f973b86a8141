import { ChatPlatformClient } from '@lib/chat-platform';
import type { SeededGuild } from '@lib/sandbox';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { type AppProcess, startApp } from '../support/app-process';
import { BillingEventStream } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { skipNotifierBacklog } from '../support/notifier-backlog';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, MEMBER, OWNER, seedProtectedGuild } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

const RAIDER_TOKEN = 'guard-the-guard-admin-token';
const DAY_MS = 86_400_000;
type Body = Record<string, unknown>;

interface Setting {
  enabled?: boolean;
  exempt_user_ids?: string[];
  threshold: number;
  window_seconds: number;
  auto_action_enabled: boolean;
}

/**
 * A hijacked administrator (a manager who is not the owner) tries to take AntiNuke out before a
 * raid: switching it off, exempting someone, raising the threshold, narrowing the window,
 * switching auto-action off, exempting themself, deleting every snapshot. Against the running
 * apps: recovery with its workflow and live sync on the fake platform, licensing, and the notifier
 * turning the events into audit entries and DMs to the owner.
 */
describe('guard the guard: a hijacked admin cannot silently loosen AntiNuke or delete snapshots', () => {
  const stack = new RecoveryStack({
    worker: true,
    liveSync: true,
    env: { ANTINUKE_PENDING_CHANGES_INTERVAL_MS: '1000' },
  });
  const owner = stack.user(OWNER);
  const admin = stack.user(ADMIN);
  let dataSource: DataSource;
  let billing: BillingEventStream;
  let notifier: AppProcess;
  let raider: ChatPlatformClient;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await skipNotifierBacklog(dataSource);
    billing = new BillingEventStream();
    await stack.start();
    notifier = await startApp('notifier', {
      DISCORD_API_URL: `${stack.platform.url}/api`,
      RECOVERY_URL: stack.recovery.url,
      DM_POLL_INTERVAL_MS: '100',
      LOG_LEVEL: 'warn',
    });
    stack.platform.registerBotToken(RAIDER_TOKEN, ADMIN, 'admin');
    raider = new ChatPlatformClient({ apiBaseUrl: `${stack.platform.url}/api`, botToken: RAIDER_TOKEN });
    // Gateway identifies are paced across every recovery on the database: a busy machine waits longer.
    await stack.onTheGateway(120_000);
  });

  afterAll(async () => {
    await notifier?.stop();
    await stack.stop();
    await billing?.close();
    await dataSource?.destroy();
  });

  const call = (who: typeof owner, method: string, path: string, body?: unknown) =>
    stack.call(stack.recovery, method, path, who, body);

  const api = async (who: typeof owner, method: string, path: string, body?: unknown): Promise<Body> => {
    const answer = await call(who, method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer.body;
  };

  /** An ENTERPRISE guild AntiNuke watches, with the setting the owner chose. */
  async function watchedGuild(
    setting: Setting,
  ): Promise<{ seeded: SeededGuild; guildId: string; name: string }> {
    const name = `Guard ${uuidv7().slice(-6)}`;
    const seeded = seedProtectedGuild(stack.platform, name);
    const guildId = await stack.guildWatchedByAntiNuke(seeded.guildId, billing);
    const answer = await call(owner, 'PUT', `/api/v1/guilds/${guildId}/antinuke`, setting);
    expect(answer.status).toBe(200);
    return { seeded, guildId, name };
  }

  const antinuke = (guildId: string) => api(owner, 'GET', `/api/v1/guilds/${guildId}/antinuke`);

  /** The audit log's entries of `type` for the guild, oldest first, once there are `count`. */
  async function auditEntries(guildId: string, type: string, count: number): Promise<Body[]> {
    return waitFor(
      `${count} ${type} audit entries`,
      async () => {
        const rows = await dataSource.query<{ payload: Body }[]>(
          `SELECT payload FROM notification.audit_log WHERE guild_id = $1 AND event_type = $2
            ORDER BY occurred_at, event_id`,
          [guildId, type],
        );
        return rows.length >= count ? rows.map((row) => row.payload) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  }

  /** DMs the owner received naming the guild and containing `text`, once there are `count`. */
  async function ownerDms(guildName: string, text: string, count: number): Promise<string[]> {
    return waitFor(
      `${count} DMs to the owner saying "${text}"`,
      () => {
        const dms = stack.platform
          .dmLog()
          .filter(
            (dm) => dm.recipientId === OWNER && dm.content.includes(guildName) && dm.content.includes(text),
          )
          .map((dm) => dm.content);
        return dms.length >= count ? dms : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  }

  /** An `antinuke` snapshot and the incident keeping it, its raider's last action `agoMs` ago. */
  async function incidentWithSnapshot(guildId: string, agoMs: number): Promise<string> {
    const snapshotId = uuidv7();
    const lastAction = new Date(Date.now() - agoMs);
    await dataSource.query(
      `INSERT INTO recovery.snapshots (id, guild_id, payload, payload_size, trigger, created_at)
       VALUES ($1, $2, '{"version":1}', 13, 'antinuke', $3)`,
      [snapshotId, guildId, lastAction],
    );
    await dataSource.query(
      `INSERT INTO recovery.antinuke_incidents
         (id, guild_id, actor_platform_user_id, action, count, first_action_at, last_action_at, snapshot_id, opened_at)
       VALUES ($1, $2, $3, 'channel_delete', 3, $4, $4, $5, $4)`,
      [uuidv7(), guildId, ADMIN, lastAction, snapshotId],
    );
    return snapshotId;
  }

  async function incidentOnceOpened(guildId: string): Promise<Body> {
    return waitFor(
      'an incident',
      async () => {
        const items = (await api(owner, 'GET', `/api/v1/guilds/${guildId}/incidents`)).items as Body[];
        return items[0];
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }

  it('holds every loosening by the admin, tells the owner, and the raid after it still opens an incident', async () => {
    const base = {
      enabled: true,
      exempt_user_ids: [],
      threshold: 3,
      window_seconds: 60,
      auto_action_enabled: false,
    };
    const { seeded, guildId, name } = await watchedGuild(base);

    const attacks: [string, Setting][] = [
      ['enabled', { ...base, enabled: false }],
      ['exempt_user_ids', { ...base, exempt_user_ids: [MEMBER] }],
      ['threshold', { ...base, threshold: 50 }],
      ['window_seconds', { ...base, window_seconds: 1 }],
    ];
    const pendingIds: string[] = [];
    for (const [field, body] of attacks) {
      const answer = await call(admin, 'PUT', `/api/v1/guilds/${guildId}/antinuke`, body);
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({
        requested_by_platform_user_id: ADMIN,
        loosened: [field],
        before: base,
      });
      const appliesIn = Date.parse(answer.body.applies_at as string) - Date.now();
      expect(appliesIn).toBeGreaterThan(DAY_MS - 60_000);
      expect(appliesIn).toBeLessThanOrEqual(DAY_MS);
      pendingIds.push(answer.body.id as string);
    }

    // Nothing changed; the last request replaced the ones before it.
    const view = await antinuke(guildId);
    expect(view).toMatchObject({ ...base, workflow_running: true, viewer_is_owner: true });
    expect((await api(admin, 'GET', `/api/v1/guilds/${guildId}/antinuke`)).viewer_is_owner).toBe(false);
    expect(view.pending_change).toMatchObject({ id: pendingIds.at(-1), loosened: ['window_seconds'] });

    const audit = await auditEntries(guildId, 'AntiNukeSettingsChanged', 5);
    const pending = audit.filter((entry) => entry.outcome === 'pending');
    expect(pending).toHaveLength(4);
    for (const entry of pending) expect(entry).toMatchObject({ actor_platform_user_id: ADMIN, before: base });
    expect(pending.map((entry) => entry.replaced_change_id)).toEqual([null, ...pendingIds.slice(0, -1)]);
    const dms = await ownerDms(name, 'AntiNuke 보호를 약하게 바꾸려 합니다', 4);
    expect(dms.some((dm) => dm.includes(`<@${ADMIN}>`) && dm.includes('AntiNuke: 켜짐 → 꺼짐'))).toBe(true);

    // The workflow still counts with the owner's setting: three deletes in a minute are a raid.
    for (const channel of ['rules', 'announcements', 'mod-chat']) {
      await raider.deleteChannel(seeded.channels[channel]);
    }
    const incident = await incidentOnceOpened(guildId);
    expect(incident).toMatchObject({ actor_platform_user_id: ADMIN, action: 'channel_delete' });
  });

  it('holds switching auto-action off; the owner refuses one change, approves another, and a due one applies', async () => {
    const base = {
      enabled: true,
      exempt_user_ids: [],
      threshold: 3,
      window_seconds: 60,
      auto_action_enabled: true,
    };
    const { guildId, name } = await watchedGuild(base);
    const put = (body: Setting) => call(admin, 'PUT', `/api/v1/guilds/${guildId}/antinuke`, body);

    const off = await put({ ...base, auto_action_enabled: false });
    expect(off.status).toBe(202);
    expect(off.body.loosened).toEqual(['auto_action_enabled']);
    const offId = off.body.id as string;

    // Only the owner answers a pending change, not the admin who asked.
    const byAdmin = await call(admin, 'POST', `/api/v1/guilds/${guildId}/antinuke/pending/${offId}/approve`);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.code).toBe('ErrOwnerOnly');
    const refused = await api(owner, 'POST', `/api/v1/guilds/${guildId}/antinuke/pending/${offId}/refuse`);
    expect(refused).toMatchObject({ ...base, pending_change: null });
    const again = await call(owner, 'POST', `/api/v1/guilds/${guildId}/antinuke/pending/${offId}/approve`);
    expect(again.status).toBe(404);

    // A tightening applies at once, whoever asks.
    const tighter = await put({ ...base, threshold: 2, window_seconds: 120 });
    expect(tighter.status).toBe(200);
    expect(tighter.body).toMatchObject({ threshold: 2, window_seconds: 120, pending_change: null });
    const tightened = { ...base, threshold: 2, window_seconds: 120 };

    // The owner applies a pending change early.
    const raise = await put({ ...tightened, threshold: 5 });
    expect(raise.status).toBe(202);
    const approved = await api(
      owner,
      'POST',
      `/api/v1/guilds/${guildId}/antinuke/pending/${raise.body.id as string}/approve`,
    );
    expect(approved).toMatchObject({ ...tightened, threshold: 5, pending_change: null });

    // One the owner lets be applies when its time comes (brought forward here instead of waiting a day).
    const switchOff = await put({ ...tightened, threshold: 5, enabled: false });
    expect(switchOff.status).toBe(202);
    expect((await antinuke(guildId)).enabled).toBe(true);
    await dataSource.query(
      `UPDATE recovery.antinuke_pending_changes SET applies_at = now() - interval '1 second' WHERE id = $1`,
      [switchOff.body.id],
    );
    await waitFor(
      'the due change to apply',
      async () => {
        const view = await antinuke(guildId);
        return view.enabled === false && view.pending_change === null;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );

    const audit = await auditEntries(guildId, 'AntiNukeSettingsChanged', 8);
    expect(audit.map((entry) => [entry.outcome, entry.actor_platform_user_id])).toEqual([
      ['applied', OWNER],
      ['pending', ADMIN],
      ['refused', OWNER],
      ['applied', ADMIN],
      ['pending', ADMIN],
      ['approved', OWNER],
      ['pending', ADMIN],
      ['applied_after_delay', ADMIN],
    ]);
    expect(audit[2]).toMatchObject({ change_id: offId, requested_by_platform_user_id: ADMIN });
    await ownerDms(name, '대기 시간이 지나 적용되었습니다', 1);
  });

  it('refuses anyone exempting themself, the owner included, and tells the owner of the admin who tried', async () => {
    const base = {
      enabled: true,
      exempt_user_ids: [],
      threshold: 3,
      window_seconds: 60,
      auto_action_enabled: false,
    };
    const { guildId, name } = await watchedGuild(base);

    for (const [who, id] of [
      [admin, ADMIN],
      [owner, OWNER],
    ] as const) {
      const answer = await call(who, 'PUT', `/api/v1/guilds/${guildId}/antinuke`, {
        ...base,
        exempt_user_ids: [MEMBER, id],
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ code: 'ErrSelfExemption' });
      expect(answer.contentType).toContain('application/problem+json');
    }
    expect(await antinuke(guildId)).toMatchObject({ ...base, pending_change: null });
    const audit = await auditEntries(guildId, 'AntiNukeSettingsChanged', 3);
    expect(
      audit
        .filter((entry) => entry.outcome === 'self_exemption_refused')
        .map((e) => e.actor_platform_user_id),
    ).toEqual([ADMIN, OWNER]);
    const [dm] = await ownerDms(name, '예외 사용자로 넣으려 했으나 거부되었습니다', 1);
    expect(dm).toContain(`<@${ADMIN}>`);
  });

  it("deletes every snapshot only softly: the owner undoes it, and an open incident's snapshot stays", async () => {
    const base = {
      enabled: true,
      exempt_user_ids: [],
      threshold: 3,
      window_seconds: 60,
      auto_action_enabled: false,
    };
    const { guildId, name } = await watchedGuild(base);
    const manual = [
      (await api(owner, 'POST', `/api/v1/guilds/${guildId}/snapshots`, {})).id as string,
      (await api(owner, 'POST', `/api/v1/guilds/${guildId}/snapshots`, {})).id as string,
    ];
    // An incident whose raider acted just now, and one whose raider's last action is 8 days old,
    // each with the snapshot AntiNuke took, stored as the incident activity stores them (the raid
    // itself is played above and in the antinuke suite; here only what a delete may do matters).
    const incidentSnapshot = await incidentWithSnapshot(guildId, 0);
    const closedIncidentSnapshot = await incidentWithSnapshot(guildId, 8 * DAY_MS);
    // The admin deletes everything they can see (a scheduled snapshot may have been taken too).
    const listed = ((await api(admin, 'GET', `/api/v1/guilds/${guildId}/snapshots`)).items as Body[]).map(
      (snapshot) => snapshot.id as string,
    );
    expect(listed).toEqual(expect.arrayContaining([...manual, incidentSnapshot]));
    expect(listed).toContain(closedIncidentSnapshot);
    const others = listed.filter((id) => id !== incidentSnapshot);
    for (const id of others)
      expect((await call(admin, 'DELETE', `/api/v1/snapshots/${id}`)).status).toBe(204);
    const kept = await call(admin, 'DELETE', `/api/v1/snapshots/${incidentSnapshot}`);
    expect(kept.status).toBe(409);
    expect(kept.body.code).toBe('ErrSnapshotOfOpenIncident');

    // Gone for everyone's reads, lists and restores.
    const left = (await api(owner, 'GET', `/api/v1/guilds/${guildId}/snapshots`)).items as Body[];
    expect(left.map((snapshot) => snapshot.id)).toContain(incidentSnapshot);
    expect(left.some((snapshot) => manual.includes(snapshot.id as string))).toBe(false);
    expect((await call(owner, 'GET', `/api/v1/snapshots/${manual[0]}`)).status).toBe(404);
    expect((await call(admin, 'DELETE', `/api/v1/snapshots/${manual[0]}`)).status).toBe(404);
    const preview = await call(owner, 'POST', '/api/v1/restore/preview', {
      snapshot_id: manual[0],
      scope: ['channels'],
    });
    expect(preview.status).toBe(404);
    expect(preview.body.code).toBe('ErrSnapshotNotFound');

    // Only the owner sees and undoes deletes.
    const adminList = await call(admin, 'GET', `/api/v1/guilds/${guildId}/deleted-snapshots`);
    expect(adminList.status).toBe(403);
    expect(adminList.body.code).toBe('ErrOwnerOnly');
    const deleted = (await api(owner, 'GET', `/api/v1/guilds/${guildId}/deleted-snapshots`)).items as Body[];
    expect(deleted.map((snapshot) => snapshot.id).sort()).toEqual([...others].sort());
    for (const snapshot of deleted) {
      expect(snapshot.deleted_by_platform_user_id).toBe(ADMIN);
      expect(Date.parse(snapshot.purge_after as string) - Date.parse(snapshot.deleted_at as string)).toBe(
        7 * DAY_MS,
      );
    }
    const byAdmin = await call(admin, 'POST', `/api/v1/snapshots/${manual[0]}/undelete`);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.code).toBe('ErrOwnerOnly');
    for (const id of manual)
      expect((await call(owner, 'POST', `/api/v1/snapshots/${id}/undelete`)).status).toBe(200);
    expect((await call(owner, 'GET', `/api/v1/snapshots/${manual[0]}`)).status).toBe(200);
    expect((await call(owner, 'POST', `/api/v1/snapshots/${manual[0]}/undelete`)).status).toBe(404);

    const audit = await auditEntries(guildId, 'SnapshotDeleted', others.length);
    expect(audit.map((entry) => entry.deleted_by_platform_user_id)).toEqual(others.map(() => ADMIN));
    const undone = await auditEntries(guildId, 'SnapshotUndeleted', 2);
    expect(undone.map((entry) => entry.undeleted_by_platform_user_id)).toEqual([OWNER, OWNER]);
    await ownerDms(name, `<@${ADMIN}>님이 삭제했습니다`, others.length);
  });
});
