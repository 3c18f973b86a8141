import { ChatPlatformClient, type GuildState } from '@lib/chat-platform';
import type { DomainEvent, PlanFeature } from '@lib/contracts';
import type { SeededGuild } from '@lib/sandbox';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/activity';
import { AuditLogEvent, PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type {
  DestructiveAction,
  DestructiveActionKind,
} from '../../apps/recovery/src/antinuke/destructive-action';
import { toMemberRolesRemoved } from '../../apps/recovery/src/sync/destructive-actions';
import { AntiNukeSignalSink } from '../../apps/recovery/src/workflow-engine/temporal/antinuke-signal.sink';
import {
  ANTINUKE_STATE_QUERY,
  ANTINUKE_WORKFLOW_TYPE,
  type AntiNukeActivities,
  type AntiNukeWorkflowInput,
  type AntiNukeWorkflowState,
  antinukeWorkflowId,
  DEFAULT_ANTINUKE_SETTINGS,
  DESTRUCTIVE_ACTION_SIGNAL,
  ENTITLEMENTS_CHANGED_SIGNAL,
  type OpenIncidentInput,
} from '../../apps/recovery/src/antinuke/workflows/antinuke-contract';
import { createRecoveryWorker } from '../../apps/recovery/src/workflow-engine/temporal/recovery-worker';
import { BillingEventStream, SubscriptionScenario } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { envelope, TestEventPublisher } from '../support/event-samples';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, MEMBER, OWNER } from '../support/restore-scenario';
import { waitFor } from '../support/wait';

type Body = Record<string, unknown>;
type Plan = 'PRO' | 'ENTERPRISE';

const ENTERPRISE_FEATURES: PlanFeature[] = [
  'RECOVERY_RESTORE',
  'RECOVERY_SNAPSHOT_MANUAL',
  'RECOVERY_SNAPSHOT_SCHEDULED',
  'RECOVERY_LIVE_SYNC',
  'ANTINUKE_DETECT',
  'ANTINUKE_AUTO_ACTION',
];
const PRO_FEATURES = ENTERPRISE_FEATURES.slice(0, 4);

/** The audit-log entries live sync reports (apps/recovery/src/sync/destructive-actions.ts). */
const KIND_OF: Partial<Record<number, DestructiveActionKind>> = {
  [AuditLogEvent.ChannelDelete]: 'channel_delete',
  [AuditLogEvent.RoleDelete]: 'role_delete',
  [AuditLogEvent.MemberBanAdd]: 'member_ban',
  [AuditLogEvent.MemberKick]: 'member_kick',
};
const PLATFORM_EPOCH_MS = 1_420_070_400_000n;

/**
 * AntiNuke on the real Temporal server, Kafka and the fake platform: licences start and end the
 * per-guild workflow, destructive actions reach it as live sync delivers them (through the sink),
 * and incidents take their snapshot, remove roles and tell the owner.
 */
describe('antinuke', () => {
  const stack = new RecoveryStack({ worker: true });
  let dataSource: DataSource;
  let billing: BillingEventStream;
  let events: TestEventPublisher;
  let connection: Connection;
  let temporal: Client;
  let sink: AntiNukeSignalSink;
  const raiders = new Map<string, ChatPlatformClient>();

  beforeAll(async () => {
    dataSource = await openDataSource();
    billing = new BillingEventStream();
    events = new TestEventPublisher();
    await stack.start();
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    temporal = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE! });
    sink = new AntiNukeSignalSink(temporal);
    for (const user of [OWNER, ADMIN]) {
      const token = `raider-token-${user}`;
      stack.platform.registerBotToken(token, user);
      raiders.set(user, new ChatPlatformClient({ apiBaseUrl: `${stack.platform.url}/api`, botToken: token }));
    }
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await connection?.close();
    await billing?.close();
    await events?.close();
    await dataSource?.destroy();
  });

  const as = (user: string) => stack.user(user);
  const api = (method: string, path: string, user = OWNER, body?: unknown) =>
    stack.call(stack.recovery, method, path, as(user), body);

  /**
   * A guild with plenty to destroy: channels ch-1..ch-9 and roles low-1..low-6 below Admin, so the
   * owner and ADMIN (Administrator) can delete any of them and the bot can take ADMIN's role.
   */
  function seedRaidableGuild(extraMembers: { id: string; roles: string[] }[] = []): SeededGuild {
    const low = Array.from({ length: 6 }, (_, i) => ({ name: `low-${i + 1}`, permissions: P.SendMessages }));
    return stack.platform.seedGuild({
      name: `Guild ${uuidv7().slice(-6)}`,
      owner: { id: OWNER, username: 'owner' },
      roles: [
        ...low,
        { name: 'Member', permissions: P.SendMessages | P.ViewChannel },
        { name: 'Admin', permissions: P.Administrator },
      ],
      channels: Array.from({ length: 9 }, (_, i) => ({ name: `ch-${i + 1}` })),
      members: [
        { username: expect.any(String), id: ADMIN, roles: ['Admin'] },
        { username: 'member', id: MEMBER, roles: ['Member'] },
        ...extraMembers.map((member) => ({ username: `member-${member.id.slice(-3)}`, ...member })),
      ],
    });
  }

  /** A registered guild on a plan (through billing and licensing, as in production) or none. */
  async function guildOnPlan(plan: Plan | null, extraMembers: { id: string; roles: string[] }[] = []) {
    const seeded = seedRaidableGuild(extraMembers);
    const registered = await api('POST', '/api/v1/guilds', OWNER, { platform_guild_id: seeded.guildId });
    expect(registered.status).toBe(200);
    const guild = new GuildUnderAttack(registered.body.id as string, seeded);
    if (plan) {
      await billing.publish(new SubscriptionScenario(guild.id).started(plan));
      await waitFor('the licence', async () => {
        const rows = await dataSource.query(`SELECT 1 FROM licensing.licenses WHERE guild_id = $1`, [
          guild.id,
        ]);
        return rows.length === 1;
      });
    }
    if (plan === 'ENTERPRISE') await running(guild.id);
    return guild;
  }

  class GuildUnderAttack {
    private auditSeen = 0;

    constructor(
      readonly id: string,
      readonly seeded: SeededGuild,
    ) {}

    get platformId(): string {
      return this.seeded.guildId;
    }

    /** `actor` deletes the channels through the platform's API, as a compromised account would. */
    async deleteChannels(actor: string, names: string[]): Promise<void> {
      for (const name of names) await raiders.get(actor)!.deleteChannel(this.seeded.channels[name]);
    }

    async deleteRoles(actor: string, names: string[]): Promise<void> {
      for (const name of names)
        await raiders.get(actor)!.deleteRole(this.platformId, this.seeded.roles[name]);
    }

    /** `actor` bans, kicks or takes a role from members through the platform's API. */
    async moderate(actor: string, method: 'PUT' | 'DELETE', path: string): Promise<void> {
      const response = await fetch(`${stack.platform.url}/api/v10/guilds/${this.platformId}${path}`, {
        method,
        headers: { Authorization: `Bot raider-token-${actor}`, 'Content-Type': 'application/json' },
        body: method === 'PUT' ? '{}' : undefined,
      });
      expect([path, response.status]).toEqual([path, 204]);
    }

    private fresh = [] as ReturnType<typeof stack.platform.auditLog>;

    /** What live sync reports of the audit-log entries since the last call, as it reports them. */
    newActions(): DestructiveAction[] {
      const entries = stack.platform.auditLog(this.platformId);
      const fresh = entries.slice(this.auditSeen);
      this.fresh = fresh;
      this.auditSeen = entries.length;
      return fresh.flatMap((entry) => {
        const kind = KIND_OF[entry.action_type];
        if (!kind) return [];
        return [
          {
            guild_id: this.id,
            platform_guild_id: this.platformId,
            kind,
            actor_platform_user_id: entry.user_id,
            target_id: entry.target_id,
            audit_log_entry_id: entry.id,
            at: new Date(Number((BigInt(entry.id) >> 22n) + PLATFORM_EPOCH_MS)).toISOString(),
          },
        ];
      });
    }

    /**
     * Signals the new actions through the sink, as live sync does, and the roles taken from members
     * (not the bot's: live sync leaves its own out); returns the destructive actions.
     */
    async report(): Promise<DestructiveAction[]> {
      const actions = this.newActions();
      for (const action of actions) await sink.record(action);
      const guild = { id: this.id, platformGuildId: this.platformId };
      for (const entry of this.fresh) {
        if (entry.user_id === stack.platform.botUserId) continue;
        const removal = toMemberRolesRemoved(guild, {
          id: entry.id,
          actorId: entry.user_id,
          actionType: entry.action_type,
          targetId: entry.target_id,
          reason: entry.reason ?? null,
          changes: entry.changes ?? [],
        });
        if (removal) await sink.recordRoleRemoval(removal);
      }
      return actions;
    }
  }

  async function describeWorkflow(guildId: string) {
    return temporal.workflow.getHandle(antinukeWorkflowId(guildId)).describe();
  }

  async function running(guildId: string): Promise<string> {
    return waitFor(
      `the antinuke workflow of ${guildId} to run`,
      async () => {
        const description = await describeWorkflow(guildId);
        return description.status.name === 'RUNNING' ? description.runId : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }

  async function state(guildId: string): Promise<AntiNukeWorkflowState> {
    return temporal.workflow
      .getHandle(antinukeWorkflowId(guildId))
      .query<AntiNukeWorkflowState>(ANTINUKE_STATE_QUERY);
  }

  /** Waits until the workflow has taken `count` destructive actions in this run and handled them. */
  async function settled(guildId: string, count: number): Promise<AntiNukeWorkflowState> {
    return waitFor(`the workflow to take ${count} actions`, async () => {
      const current = await state(guildId);
      return current.actions_this_run >= count && current.incidents_pending === 0 ? current : undefined;
    });
  }

  async function incidents(guildId: string): Promise<Body[]> {
    return dataSource.query(
      `SELECT * FROM recovery.antinuke_incidents WHERE guild_id = $1 ORDER BY opened_at, id`,
      [guildId],
    );
  }

  async function incidentCount(guildId: string, count: number): Promise<Body[]> {
    return waitFor(
      `${count} incident(s)`,
      async () => {
        const rows = await incidents(guildId);
        return rows.length >= count ? rows : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${stack.recovery.output().slice(-4000)}`);
    });
  }

  async function incidentEvents(guildId: string): Promise<DomainEvent<'AntiNukeIncidentOpened'>[]> {
    const rows = await dataSource.query<{ envelope: DomainEvent<'AntiNukeIncidentOpened'> }[]>(
      `SELECT envelope FROM recovery.outbox WHERE event_type = 'AntiNukeIncidentOpened' AND message_key = $1 ORDER BY id`,
      [guildId],
    );
    return rows.map((row) => row.envelope);
  }

  async function snapshotPayload(snapshotId: string): Promise<{ trigger: string; payload: GuildState }> {
    const [row] = await dataSource.query<{ trigger: string; payload: GuildState }[]>(
      `SELECT trigger, payload FROM recovery.snapshots WHERE id = $1`,
      [snapshotId],
    );
    return row;
  }

  const memberRoles = (guild: GuildUnderAttack, user: string) =>
    stack.platform.guild(guild.platformId).members.find((member) => member.user_id === user)!.roles;

  async function putSettings(guildId: string, settings: Body, user = OWNER) {
    return api('PUT', `/api/v1/guilds/${guildId}/antinuke`, user, settings);
  }

  function licenseUpgraded(guildId: string, features = ENTERPRISE_FEATURES): DomainEvent<'LicenseUpgraded'> {
    return envelope('LicenseUpgraded', guildId, {
      license_id: uuidv7(),
      guild_id: guildId,
      old_plan_code: 'FREE',
      new_plan_code: 'ENTERPRISE',
      features,
      expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      cause: 'SubscriptionStarted',
    });
  }

  function licenseDowngraded(
    guildId: string,
    removed: PlanFeature[],
    features: PlanFeature[],
  ): DomainEvent<'LicenseDowngraded'> {
    return envelope('LicenseDowngraded', guildId, {
      license_id: uuidv7(),
      guild_id: guildId,
      old_plan_code: 'ENTERPRISE',
      new_plan_code: features.includes('ANTINUKE_DETECT') ? 'ENTERPRISE' : 'PRO',
      features,
      removed_features: removed,
      expires_at: null,
      cause: 'PlanDowngraded',
    });
  }

  async function consumed(eventId: string): Promise<void> {
    await waitFor(
      `event ${eventId} to be consumed`,
      async () => {
        const rows = await dataSource.query(
          `SELECT 1 FROM recovery.processed_events WHERE consumer = 'antinuke' AND event_id = $1`,
          [eventId],
        );
        return rows.length === 1;
      },
      { timeoutMs: 60_000 },
    );
  }

  describe('incidents', () => {
    it('opens one incident for a burst, with a snapshot taken before the damage that followed', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      // A wide window, so a slow machine cannot split the burst; the threshold stays the default 3.
      expect(
        (await putSettings(guild.id, { threshold: 3, window_seconds: 60, auto_action_enabled: false }))
          .status,
      ).toBe(200);
      const adminRoles = memberRoles(guild, ADMIN);

      await guild.deleteChannels(ADMIN, ['ch-1', 'ch-2', 'ch-3']);
      const burst = await guild.report();
      expect(burst).toHaveLength(3);
      const [incident] = await incidentCount(guild.id, 1);

      // The raid goes on after the incident opened: the same burst, and damage the snapshot predates.
      await guild.deleteChannels(ADMIN, ['ch-4', 'ch-5']);
      expect(await guild.report()).toHaveLength(2);
      const after = await settled(guild.id, 5);
      expect(after.incidents_opened).toBe(1);
      expect(await incidents(guild.id)).toHaveLength(1);

      expect(incident).toMatchObject({
        actor_platform_user_id: ADMIN,
        action: 'channel_delete',
        count: 3,
        audit_log_entry_ids: burst.map((action) => action.audit_log_entry_id),
        snapshot_id: expect.any(String),
        snapshot_error: null,
        auto_action_taken: false,
        auto_action_error: null,
      });
      const snapshot = await snapshotPayload(incident.snapshot_id as string);
      expect(snapshot.trigger).toBe('antinuke');
      const names = snapshot.payload.channels.map((channel) => channel.name);
      expect(names.sort()).toEqual(['ch-4', 'ch-5', 'ch-6', 'ch-7', 'ch-8', 'ch-9']);
      // Auto-action is off by default: the actor keeps their roles.
      expect(memberRoles(guild, ADMIN)).toEqual(adminRoles);

      const [event] = await incidentEvents(guild.id);
      expect(event.payload).toEqual({
        incident_id: incident.id,
        guild_id: guild.id,
        actor_platform_user_id: ADMIN,
        action: 'channel_delete',
        count: 3,
        snapshot_id: incident.snapshot_id,
        owner_platform_user_id: OWNER,
        guild_name: expect.stringMatching(/^Guild /),
        auto_action_taken: false,
        occurred_at: new Date(incident.opened_at as Date).toISOString(),
      });
      expect(await incidentEvents(guild.id)).toHaveLength(1);
    });

    it('records the members the raider banned and kicked and the roles they stripped, once each', async () => {
      const victims = [
        '200000000000000101',
        '200000000000000102',
        '200000000000000103',
        '200000000000000104',
      ];
      const stripped = '200000000000000105';
      const guild = await guildOnPlan('ENTERPRISE', [
        ...victims.map((id) => ({ id, roles: ['Member'] })),
        { id: stripped, roles: ['low-1', 'Member'] },
      ]);
      expect(
        (await putSettings(guild.id, { threshold: 3, window_seconds: 60, auto_action_enabled: false }))
          .status,
      ).toBe(200);
      const { roles } = guild.seeded;

      // A role taken just before the burst: within its window, so part of the raid.
      await guild.moderate(ADMIN, 'DELETE', `/members/${MEMBER}/roles/${roles.Member}`);
      for (const victim of victims.slice(0, 3)) await guild.moderate(ADMIN, 'PUT', `/bans/${victim}`);
      expect(await guild.report()).toHaveLength(3);
      const [incident] = await incidentCount(guild.id, 1);
      expect(incident).toMatchObject({ actor_platform_user_id: ADMIN, action: 'member_ban', count: 3 });

      // The raid goes on after the incident opened; one removal is reported twice (a gateway resume).
      await guild.moderate(ADMIN, 'DELETE', `/members/${victims[3]}`);
      await raiders.get(ADMIN)!.removeMemberRole(guild.platformId, stripped, roles['low-1']);
      await guild.report();
      const removal = stack.platform
        .auditLog(guild.platformId)
        .filter((entry) => entry.action_type === AuditLogEvent.MemberRoleUpdate)
        .at(-1)!;
      await sink.recordRoleRemoval(
        toMemberRolesRemoved(
          { id: guild.id, platformGuildId: guild.platformId },
          {
            id: removal.id,
            actorId: removal.user_id,
            actionType: removal.action_type,
            targetId: removal.target_id,
            reason: null,
            changes: removal.changes ?? [],
          },
        )!,
      );

      const expected = {
        id: incident.id,
        snapshot_id: incident.snapshot_id,
        members_banned: victims.slice(0, 3),
        members_banned_total: 3,
        members_kicked: [victims[3]],
        members_kicked_total: 1,
        roles_stripped: [
          { user_id: MEMBER, role_id: roles.Member, role_name: 'Member' },
          { user_id: stripped, role_id: roles['low-1'], role_name: 'low-1' },
        ],
        roles_stripped_total: 2,
      };
      const answered = await waitFor('the incident to list what the raider did to members', async () => {
        const { body } = await api('GET', `/api/v1/guilds/${guild.id}/incidents`);
        const [item] = body.items as Body[];
        return item?.roles_stripped_total === 2 && item.members_kicked_total === 1 ? item : undefined;
      });
      expect(answered).toMatchObject(expected);
      expect(await settled(guild.id, 4)).toMatchObject({ incidents_opened: 1, targets_pending: 0 });
      const rows = await dataSource.query(
        `SELECT kind, count(*)::int AS n FROM recovery.antinuke_incident_targets WHERE incident_id = $1
          GROUP BY kind ORDER BY kind`,
        [incident.id],
      );
      expect(rows).toEqual([
        { kind: 'member_ban', n: 3 },
        { kind: 'member_kick', n: 1 },
        { kind: 'member_role_remove', n: 2 },
      ]);
    });

    it('opens none for several actors each below the threshold across kinds, or for a repeated entry', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      expect(
        (await putSettings(guild.id, { threshold: 3, window_seconds: 60, auto_action_enabled: false }))
          .status,
      ).toBe(200);
      // One score per actor, every kind added in: two each.
      await guild.deleteChannels(ADMIN, ['ch-1']);
      await guild.deleteRoles(ADMIN, ['low-1']);
      await guild.deleteChannels(OWNER, ['ch-3']);
      await guild.deleteRoles(OWNER, ['low-3']);
      const reported = await guild.report();
      expect(reported).toHaveLength(4);
      // Live sync reporting an entry again (a gateway resume) counts once.
      await sink.record(reported[0]);
      await sink.record(reported[1]);
      expect((await settled(guild.id, 6)).incidents_opened).toBe(0);

      // Signals are taken in order: the owner's third action, of either kind, opens the one incident there is.
      await guild.deleteRoles(OWNER, ['low-4']);
      await guild.report();
      const rows = await incidentCount(guild.id, 1);
      expect(await settled(guild.id, 7)).toMatchObject({ incidents_opened: 1 });
      expect(rows).toEqual([
        expect.objectContaining({ actor_platform_user_id: OWNER, action: 'role_delete', count: 3 }),
      ]);
    });

    it('removes the actor’s roles when auto-action is on, never the owner’s, and not after ENTERPRISE is gone', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      // A short window: the actor's raid ends once they are quiet for it, so a later raid of theirs
      // is a new incident.
      const enabled = await putSettings(guild.id, {
        threshold: 3,
        window_seconds: 5,
        auto_action_enabled: true,
      });
      expect(enabled).toMatchObject({ status: 200, body: { auto_action_enabled: true } });
      expect(memberRoles(guild, ADMIN)).toEqual([guild.seeded.roles.Admin]);

      await guild.deleteChannels(ADMIN, ['ch-1', 'ch-2', 'ch-3']);
      await guild.report();
      const [incident] = await incidentCount(guild.id, 1);
      expect(incident).toMatchObject({
        actor_platform_user_id: ADMIN,
        auto_action_taken: true,
        auto_action_error: null,
      });
      expect(memberRoles(guild, ADMIN)).toEqual([]);
      const removal = stack.platform
        .auditLog(guild.platformId)
        .find((entry) => entry.action_type === AuditLogEvent.MemberRoleUpdate && entry.target_id === ADMIN);
      expect(removal).toMatchObject({
        user_id: stack.platform.botUserId,
        reason: `AntiNuke incident ${String(incident.id)}`,
      });
      const [event] = await incidentEvents(guild.id);
      expect(event.payload).toMatchObject({ incident_id: incident.id, auto_action_taken: true });

      // The owner's burst is recorded, and the owner keeps their roles.
      await guild.deleteRoles(OWNER, ['low-1', 'low-2', 'low-3']);
      await guild.report();
      const [, ownerIncident] = await incidentCount(guild.id, 2);
      expect(ownerIncident).toMatchObject({
        actor_platform_user_id: OWNER,
        action: 'role_delete',
        auto_action_taken: false,
        auto_action_error: expect.stringContaining('owns the guild'),
      });

      // Downgraded below ENTERPRISE (docs/behaviour.md appendix rule 7): auto-action is off, and stays off.
      const downgrade = licenseDowngraded(
        guild.id,
        ['ANTINUKE_AUTO_ACTION'],
        ENTERPRISE_FEATURES.slice(0, 5),
      );
      await events.publish([downgrade]);
      await consumed(downgrade.id);
      expect(await state(guild.id)).toMatchObject({
        settings: { auto_action_enabled: false },
        entitlements: { detect: true, auto_action_allowed: false },
      });
      const [settingsRow] = await dataSource.query(
        `SELECT auto_action_enabled FROM recovery.antinuke_settings WHERE guild_id = $1`,
        [guild.id],
      );
      expect(settingsRow).toEqual({ auto_action_enabled: false });
      stack.platform.mutate(guild.platformId, (live) => {
        live.members.find((member) => member.user_id === ADMIN)!.roles = [guild.seeded.roles.Admin];
      });
      // The admin's first raid is over once a window has passed since their last action.
      const lastByAdmin = stack.platform
        .auditLog(guild.platformId)
        .filter((entry) => entry.user_id === ADMIN)
        .at(-1)!;
      const quietFrom = Number((BigInt(lastByAdmin.id) >> 22n) + PLATFORM_EPOCH_MS) + 5_000;
      await waitFor('a quiet window after the admin’s raid', () => Date.now() > quietFrom, {
        timeoutMs: 10_000,
        intervalMs: 100,
      });
      await guild.deleteRoles(ADMIN, ['low-4', 'low-5', 'low-6']);
      await guild.report();
      const [, , third] = await incidentCount(guild.id, 3);
      expect(third).toMatchObject({
        actor_platform_user_id: ADMIN,
        action: 'role_delete',
        auto_action_taken: false,
        auto_action_error: null,
      });
      expect(memberRoles(guild, ADMIN)).toEqual([guild.seeded.roles.Admin]);
    });

    it('opens the incident without a snapshot when the guild cannot be read, tells the owner and alerts', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      expect(
        (await putSettings(guild.id, { threshold: 3, window_seconds: 60, auto_action_enabled: false }))
          .status,
      ).toBe(200);
      stack.platform.injectFailure({
        method: 'GET',
        path: `/guilds/${guild.platformId}`,
        status: 503,
        times: 1_000,
      });

      await guild.deleteChannels(ADMIN, ['ch-1', 'ch-2', 'ch-3']);
      await guild.report();
      const [incident] = await incidentCount(guild.id, 1);
      expect(incident).toMatchObject({
        actor_platform_user_id: ADMIN,
        snapshot_id: null,
        snapshot_error: expect.stringContaining('ErrPlatformUnavailable'),
      });
      const [event] = await incidentEvents(guild.id);
      expect(event.payload).toMatchObject({
        incident_id: incident.id,
        snapshot_id: null,
        owner_platform_user_id: OWNER,
      });
      const antinukeSnapshots = await dataSource.query(
        `SELECT 1 FROM recovery.snapshots WHERE guild_id = $1 AND trigger = 'antinuke'`,
        [guild.id],
      );
      expect(antinukeSnapshots).toEqual([]);
      await waitFor(
        'the operator alert',
        () =>
          stack.recovery.output().includes('antinuke_snapshot_failed') &&
          stack.recovery.output().includes(String(incident.id)),
      );
    });
  });

  describe('the switch and exempt users (docs/behaviour.md §1.6)', () => {
    const wide = { threshold: 3, window_seconds: 60, auto_action_enabled: false };

    it('opens no incident for a raid by an exempt user, and one for the same raid by anyone else', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      const saved = await putSettings(guild.id, { ...wide, exempt_user_ids: [ADMIN] });
      expect(saved).toMatchObject({
        status: 200,
        body: {
          enabled: true,
          exempt_user_ids: [ADMIN],
          exempt_users: [{ platform_user_id: ADMIN, name: expect.any(String) }],
        },
      });
      expect(await state(guild.id)).toMatchObject({ settings: { enabled: true, exempt_user_ids: [ADMIN] } });

      await guild.deleteChannels(ADMIN, ['ch-1', 'ch-2', 'ch-3', 'ch-4']);
      expect(await guild.report()).toHaveLength(4);
      expect(await settled(guild.id, 4)).toMatchObject({ actions_ignored_this_run: 4, incidents_opened: 0 });

      await guild.deleteChannels(OWNER, ['ch-5', 'ch-6', 'ch-7']);
      await guild.report();
      const rows = await incidentCount(guild.id, 1);
      expect(await settled(guild.id, 7)).toMatchObject({ actions_ignored_this_run: 4, incidents_opened: 1 });
      expect(rows).toEqual([
        expect.objectContaining({ actor_platform_user_id: OWNER, action: 'channel_delete', count: 3 }),
      ]);
    });

    it('opens no incident while switched off, and counts afresh once switched on', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      const off = await putSettings(guild.id, { ...wide, enabled: false });
      expect(off).toMatchObject({ status: 200, body: { enabled: false, workflow_running: true } });
      const [row] = await dataSource.query(
        `SELECT enabled, exempt_user_ids FROM recovery.antinuke_settings WHERE guild_id = $1`,
        [guild.id],
      );
      expect(row).toEqual({ enabled: false, exempt_user_ids: [] });

      await guild.deleteChannels(ADMIN, ['ch-1', 'ch-2', 'ch-3']);
      await guild.report();
      expect(await settled(guild.id, 3)).toMatchObject({ actions_ignored_this_run: 3, incidents_opened: 0 });

      // A body without `enabled` (a client from before the switch) leaves it off.
      expect(await putSettings(guild.id, { ...wide, threshold: 4 })).toMatchObject({
        status: 200,
        body: { enabled: false, threshold: 4 },
      });
      await guild.deleteChannels(ADMIN, ['ch-4']);
      await guild.report();
      expect(await settled(guild.id, 4)).toMatchObject({ actions_ignored_this_run: 4, incidents_opened: 0 });

      expect((await putSettings(guild.id, { ...wide, enabled: true })).body).toMatchObject({ enabled: true });
      await guild.deleteChannels(ADMIN, ['ch-5', 'ch-6']);
      await guild.report();
      expect(await settled(guild.id, 6)).toMatchObject({ incidents_opened: 0 });
      await guild.deleteChannels(ADMIN, ['ch-7']);
      await guild.report();
      const [incident] = await incidentCount(guild.id, 1);
      expect(incident).toMatchObject({
        actor_platform_user_id: ADMIN,
        count: 3,
        audit_log_entry_ids: expect.arrayContaining([expect.any(String)]),
      });
      expect(incident.audit_log_entry_ids).toHaveLength(3);
      expect(await incidents(guild.id)).toHaveLength(1);
    });

    it('refuses a bad switch or list with the field named, and changes nothing', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      const kept = { ...wide, enabled: true, exempt_user_ids: [ADMIN] };
      expect((await putSettings(guild.id, kept)).status).toBe(200);
      const tooMany = Array.from({ length: 51 }, (_, i) => `3000000000000${String(i).padStart(5, '0')}`);
      for (const [body, field] of [
        [{ ...wide, enabled: null }, 'enabled'],
        [{ ...wide, enabled: 'no' }, 'enabled'],
        [{ ...wide, exempt_user_ids: null }, 'exempt_user_ids'],
        [{ ...wide, exempt_user_ids: ADMIN }, 'exempt_user_ids'],
        [{ ...wide, exempt_user_ids: tooMany }, 'exempt_user_ids'],
        [{ ...wide, exempt_user_ids: [ADMIN, ADMIN] }, 'exempt_user_ids'],
        [{ ...wide, exempt_user_ids: ['12345'] }, 'exempt_user_ids'],
        [{ ...wide, exempt_user_ids: ['<@200000000000000002>'] }, 'exempt_user_ids'],
        [{ ...wide, exempt_user_ids: [200000000] }, 'exempt_user_ids'],
      ] as const) {
        const refused = await putSettings(guild.id, body);
        expect([
          JSON.stringify(body).slice(0, 120),
          refused.status,
          refused.body.code,
          refused.contentType,
        ]).toEqual([
          JSON.stringify(body).slice(0, 120),
          400,
          'ErrValidation',
          expect.stringContaining('application/problem+json'),
        ]);
        expect(refused.body.errors).toEqual([expect.objectContaining({ field })]);
      }
      expect((await api('GET', `/api/v1/guilds/${guild.id}/antinuke`)).body).toMatchObject({
        enabled: true,
        exempt_user_ids: [ADMIN],
      });

      // Fifty is allowed; an id of nobody in the guild is kept, without a name.
      const fifty = [...tooMany.slice(0, 49), ADMIN];
      const saved = await putSettings(guild.id, { ...wide, exempt_user_ids: fifty });
      expect(saved.status).toBe(200);
      expect(saved.body.exempt_users).toHaveLength(50);
      expect((saved.body.exempt_users as Body[])[0]).toEqual({ platform_user_id: tooMany[0], name: null });
      expect((saved.body.exempt_users as Body[])[49]).toEqual({
        platform_user_id: ADMIN,
        name: expect.any(String),
      });
      expect(await state(guild.id)).toMatchObject({ settings: { exempt_user_ids: fifty } });
    });
  });

  describe('licences', () => {
    it('starts one workflow however often LicenseUpgraded arrives, and a new one after a downgrade ended it', async () => {
      const guild = await guildOnPlan(null);
      const upgrade = licenseUpgraded(guild.id);
      await events.publish([upgrade]);
      const firstRun = await running(guild.id);

      // Redelivered, and a second upgrade event on top: still the same run.
      const another = licenseUpgraded(guild.id);
      await events.publish([upgrade, another, upgrade]);
      await consumed(another.id);
      const [{ count }] = await dataSource.query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM recovery.processed_events WHERE consumer = 'antinuke' AND event_id = $1`,
        [upgrade.id],
      );
      expect(count).toBe(1);
      const description = await describeWorkflow(guild.id);
      expect([description.status.name, description.runId]).toEqual(['RUNNING', firstRun]);
      expect(description.type).toBe(ANTINUKE_WORKFLOW_TYPE);
      expect(description.taskQueue).toBe(stack.taskQueue);

      // Losing ANTINUKE_DETECT ends the workflow; actions for the guild are then passed over.
      const downgrade = licenseDowngraded(
        guild.id,
        ['ANTINUKE_DETECT', 'ANTINUKE_AUTO_ACTION'],
        PRO_FEATURES,
      );
      await events.publish([downgrade]);
      await waitFor(
        'the workflow to end',
        async () => (await describeWorkflow(guild.id)).status.name === 'COMPLETED',
        {
          timeoutMs: 60_000,
        },
      );
      await expect(
        temporal.workflow.getHandle(antinukeWorkflowId(guild.id), firstRun).result(),
      ).resolves.toEqual({ ended: 'detection_removed', incidents_opened: 0 });
      await guild.deleteChannels(ADMIN, ['ch-1']);
      const [action] = guild.newActions();
      await expect(sink.record(action)).resolves.toBeUndefined();

      // Upgraded again: a new run of the same workflow id.
      await events.publish([licenseUpgraded(guild.id)]);
      const secondRun = await waitFor(
        'a new run',
        async () => {
          const next = await describeWorkflow(guild.id);
          return next.status.name === 'RUNNING' && next.runId !== firstRun ? next.runId : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(secondRun).not.toBe(firstRun);
    });

    it('does not start AntiNuke for a plan without ANTINUKE_DETECT', async () => {
      const guild = await guildOnPlan(null);
      const upgrade = licenseUpgraded(guild.id, PRO_FEATURES);
      await events.publish([upgrade]);
      await consumed(upgrade.id);
      await expect(describeWorkflow(guild.id)).rejects.toBeInstanceOf(WorkflowNotFoundError);
      const view = await api('GET', `/api/v1/guilds/${guild.id}/antinuke`);
      expect(view.body).toMatchObject({ workflow_running: false, detection_available: false });
    });
  });

  describe('API', () => {
    it('shows and changes the setting for guild managers, within the plan, and the workflow follows', async () => {
      const guild = await guildOnPlan('ENTERPRISE');
      const path = `/api/v1/guilds/${guild.id}/antinuke`;
      expect(await api('GET', path)).toMatchObject({
        status: 200,
        body: {
          guild_id: guild.id,
          enabled: true,
          exempt_user_ids: [],
          exempt_users: [],
          threshold: 3,
          window_seconds: 10,
          auto_action_enabled: false,
          updated_at: null,
          plan_code: 'ENTERPRISE',
          detection_available: true,
          auto_action_available: true,
          workflow_running: true,
        },
      });

      for (const body of [
        {},
        { threshold: 3, window_seconds: 10 },
        { threshold: 1, window_seconds: 10, auto_action_enabled: false },
        { threshold: 51, window_seconds: 10, auto_action_enabled: false },
        { threshold: 2.5, window_seconds: 10, auto_action_enabled: false },
        { threshold: '3', window_seconds: 10, auto_action_enabled: false },
        { threshold: 3, window_seconds: 0, auto_action_enabled: false },
        { threshold: 3, window_seconds: 301, auto_action_enabled: false },
        { threshold: 3, window_seconds: 10, auto_action_enabled: 'yes' },
        { threshold: 3, window_seconds: 10, auto_action_enabled: false, actor: ADMIN },
      ]) {
        const refused = await putSettings(guild.id, body);
        expect([JSON.stringify(body), refused.status, refused.body.code, refused.contentType]).toEqual([
          JSON.stringify(body),
          400,
          'ErrValidation',
          expect.stringContaining('application/problem+json'),
        ]);
      }
      expect(
        await putSettings(guild.id, { threshold: 5, window_seconds: 30, auto_action_enabled: true }, MEMBER),
      ).toMatchObject({
        status: 403,
        body: { code: 'ErrForbidden' },
      });
      expect((await api('GET', path, MEMBER)).status).toBe(403);

      const changed = await putSettings(guild.id, {
        threshold: 5,
        window_seconds: 30,
        auto_action_enabled: true,
      });
      expect(changed).toMatchObject({
        status: 200,
        body: { threshold: 5, window_seconds: 30, auto_action_enabled: true, updated_at: expect.any(String) },
      });
      expect((await api('GET', path)).body).toMatchObject({
        threshold: 5,
        window_seconds: 30,
        auto_action_enabled: true,
      });
      expect(await state(guild.id)).toMatchObject({
        settings: { threshold: 5, window_seconds: 30, auto_action_enabled: true },
      });

      const pro = await guildOnPlan('PRO');
      const proPath = `/api/v1/guilds/${pro.id}/antinuke`;
      expect((await api('GET', proPath)).body).toMatchObject({
        plan_code: 'PRO',
        detection_available: false,
        auto_action_available: false,
        workflow_running: false,
      });
      expect(
        await putSettings(pro.id, { threshold: 3, window_seconds: 10, auto_action_enabled: true }),
      ).toMatchObject({
        status: 403,
        body: { code: 'ErrPermissionDenied', required_feature: 'ANTINUKE_AUTO_ACTION' },
      });
      expect(
        await putSettings(pro.id, { threshold: 4, window_seconds: 10, auto_action_enabled: false }),
      ).toMatchObject({
        status: 403,
        body: { code: 'ErrPermissionDenied', required_feature: 'ANTINUKE_DETECT' },
      });
      const stored = await dataSource.query(`SELECT 1 FROM recovery.antinuke_settings WHERE guild_id = $1`, [
        pro.id,
      ]);
      expect(stored).toEqual([]);
    });

    it('lists a guild’s incidents newest first, page by page, to its managers only', async () => {
      const guild = await guildOnPlan(null);
      const base = Date.parse('2026-11-20T10:00:00.000Z');
      const ids = [0, 1, 2].map(() => uuidv7());
      for (const [index, id] of ids.entries()) {
        await dataSource.query(
          `INSERT INTO recovery.antinuke_incidents
             (id, guild_id, actor_platform_user_id, action, count, first_action_at, last_action_at, opened_at,
              snapshot_id, snapshot_error)
           VALUES ($1, $2, $3, 'role_delete', 3, $4, $4, $4, NULL, 'ErrPlatformUnavailable: down')`,
          [id, guild.id, ADMIN, new Date(base + index * 60_000)],
        );
      }
      const path = `/api/v1/guilds/${guild.id}/incidents`;
      const first = await api('GET', `${path}?limit=2`);
      expect(first.status).toBe(200);
      expect((first.body.items as Body[]).map((item) => item.id)).toEqual([ids[2], ids[1]]);
      expect((first.body.items as Body[])[0]).toEqual({
        id: ids[2],
        guild_id: guild.id,
        actor_platform_user_id: ADMIN,
        action: 'role_delete',
        count: 3,
        audit_log_entry_ids: [],
        first_action_at: new Date(base + 120_000).toISOString(),
        last_action_at: new Date(base + 120_000).toISOString(),
        snapshot_id: null,
        snapshot_error: 'ErrPlatformUnavailable: down',
        undo_snapshot_id: null,
        auto_action_taken: false,
        auto_action_error: null,
        opened_at: new Date(base + 120_000).toISOString(),
        members_banned: [],
        members_banned_total: 0,
        members_kicked: [],
        members_kicked_total: 0,
        roles_stripped: [],
        roles_stripped_total: 0,
        quarantine: null,
      });
      const second = await api('GET', `${path}?limit=2&cursor=${String(first.body.next_cursor)}`);
      expect(second.body).toMatchObject({
        items: [expect.objectContaining({ id: ids[0] })],
        next_cursor: null,
      });
      expect((await api('GET', path)).body.items).toHaveLength(3);

      expect(await api('GET', path, MEMBER)).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
      for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=!!', '?cursor=bm90LWEtY3Vyc29y']) {
        const refused = await api('GET', `${path}${query}`);
        expect([query, refused.status, refused.body.code]).toEqual([query, 400, 'ErrValidation']);
      }
      // A guild nobody manages (unknown, or an id that names none) is refused like any other.
      for (const other of ['not-a-uuid', uuidv7()]) {
        expect(await api('GET', `/api/v1/guilds/${other}/incidents`)).toMatchObject({
          status: 403,
          body: { code: 'ErrForbidden' },
        });
      }
    });
  });

  describe('workflow', () => {
    /**
     * The workflow itself on a worker of this test, with recording activities and a small
     * continue-as-new bound: windows, duplicates and open bursts survive the new run.
     */
    it('carries its windows across continue-as-new and ends when detection is removed', async () => {
      const taskQueue = `antinuke-workflow-test-${uuidv7()}`;
      const opened: OpenIncidentInput[] = [];
      const snapshots: string[] = [];
      const activities: AntiNukeActivities = {
        takeIncidentSnapshot({ incidentId }) {
          snapshots.push(incidentId);
          return Promise.reject(ApplicationFailure.nonRetryable('guild gone', 'ErrGuildNotFound'));
        },
        removeActorRoles: () => Promise.resolve({ taken: true, error: null }),
        quarantineActor: () => Promise.resolve({ taken: true, error: null, record: null }),
        startIncidentLockdown: () => Promise.resolve({ lockdownId: null }),
        openIncident(input) {
          opened.push(input);
          return Promise.resolve();
        },
        recordIncidentTargets: () => Promise.resolve(),
      };
      const worker = await createRecoveryWorker({
        address: process.env.TEMPORAL_ADDRESS!,
        namespace: process.env.TEMPORAL_NAMESPACE!,
        taskQueue,
        workflows: {
          workflowsPath: require.resolve('../../apps/recovery/src/antinuke/workflows/antinuke.workflow'),
        },
        activities,
      });
      const guildId = uuidv7();
      const action = (n: number, actor = ADMIN): DestructiveAction => ({
        guild_id: guildId,
        platform_guild_id: '900000000000000001',
        kind: 'channel_delete',
        actor_platform_user_id: actor,
        target_id: `80000000000000000${n}`,
        audit_log_entry_id: `70000000000000000${n}`,
        at: new Date().toISOString(),
      });
      const input: AntiNukeWorkflowInput = {
        guildId,
        settings: { ...DEFAULT_ANTINUKE_SETTINGS, window_seconds: 60, auto_action_enabled: true },
        entitlements: { detect: true, auto_action_allowed: true },
        signalsPerRun: 3,
      };
      await worker.runUntil(
        (async () => {
          const handle = await temporal.workflow.start(ANTINUKE_WORKFLOW_TYPE, {
            taskQueue,
            workflowId: antinukeWorkflowId(guildId),
            args: [input],
          });
          const signal = (value: DestructiveAction) => handle.signal(DESTRUCTIVE_ACTION_SIGNAL, value);
          await signal(action(1));
          await signal(action(2));
          await signal(action(3, OWNER));
          const secondRun = await waitFor('the second run', async () => {
            const description = await handle.describe();
            return description.runId !== handle.firstExecutionRunId ? description.runId : undefined;
          });
          await signal(action(1)); // the same entry again, from before the new run
          await signal(action(4)); // the third of ADMIN's, across the runs
          await waitFor('the incident', () => opened.length === 1);
          await signal(action(5)); // the same burst: no second incident
          await waitFor('the third run', async () => (await handle.describe()).runId !== secondRun);
          await signal(action(6));
          await handle.signal(ENTITLEMENTS_CHANGED_SIGNAL, { detect: false, auto_action_allowed: false });
          const result: unknown = await temporal.workflow.getHandle(antinukeWorkflowId(guildId)).result();
          expect(result).toEqual({ ended: 'detection_removed', incidents_opened: 1 });
        })(),
      );
      expect(snapshots).toHaveLength(1);
      expect(opened).toEqual([
        expect.objectContaining({
          guildId,
          incidentId: snapshots[0],
          snapshotId: null,
          snapshotError: 'ErrGuildNotFound: guild gone',
          autoActionTaken: true,
          autoActionError: null,
          burst: expect.objectContaining({
            actor_platform_user_id: ADMIN,
            count: 3,
            audit_log_entry_ids: ['700000000000000001', '700000000000000002', '700000000000000004'],
          }),
        }),
      ]);
      expect(snapshots[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });
  });
});
