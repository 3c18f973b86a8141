import { Logger } from '@nestjs/common';
import type { ChatPlatformClient, GuildState } from '@lib/chat-platform';
import type { PlanFeature } from '@lib/contracts';
import type { EntitlementsClient } from '@lib/entitlements';
import { SchedulerRegistry } from '@nestjs/schedule';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { register } from 'prom-client';
import { expectNoRetryAfterStop, expectRetriesAfter } from '../../../../test/support/retry-timer';
import type { BotRemoval, BotRemovalRecorder } from '../antinuke/bot-removal.recorder';
import type { BotRemovalReadBack } from '../antinuke/undo/bot-removal-read-back';
import type { DestructiveAction, MemberRolesRemoved } from '../antinuke/destructive-action';
import type { GuildRegistry } from '../guilds/guild-registry.service';
import type { ChangeJournal } from './change-journal';
import type { JournalAuditEntry, JournalChange } from './change-journal-entry';
import type { AuditLogEntry, GuildEvent } from './guild-events';
import { GuildMirror } from './guild-mirror';
import {
  CATEGORY,
  channel,
  GENERAL,
  GUILD,
  guildState,
  MODS,
  platformRole,
  RULES,
} from './guild-state.fixture';
import { InMemoryGuildEventSource } from './in-memory-guild-event.source';
import type { LiveSyncControl } from './live-sync-control.repository';
import { LiveSyncService } from './live-sync.service';

const GUILD_ID = '0190a000-0000-7000-8000-000000000001';
const BOT = '400000000000000001';
const RAIDER = '300000000000000009';
const RESTORE_JOB = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const PRO: PlanFeature[] = ['RECOVERY_RESTORE', 'RECOVERY_LIVE_SYNC'];
const HOUR = 3_600_000;

/** Live sync over an in-memory gateway, with the registry, licences, pauses and platform as plain stubs. */
function setup() {
  const source = new InMemoryGuildEventSource();
  const paused = new Set<string>();
  const features = new Map<string, PlanFeature[]>([[GUILD_ID, PRO]]);
  const registered = new Map([[GUILD, GUILD_ID]]);
  let platformState: GuildState = guildState();

  const control = {
    isPaused: jest.fn((guildId: string) => Promise.resolve(paused.has(guildId))),
  };
  const registry = {
    findByPlatformId: jest.fn((platformGuildId: string) => {
      const id = registered.get(platformGuildId);
      return Promise.resolve(id ? { id, platformGuildId, active: true } : null);
    }),
  };
  const entitlements = {
    get: jest.fn((guildId: string) => Promise.resolve({ features: features.get(guildId) ?? [] })),
  };
  const platform = {
    getGuildState: jest.fn(() => Promise.resolve(platformState)),
    getMember: jest.fn((_guildId: string, userId: string) =>
      Promise.resolve({ user: { id: userId }, roles: [ADMINS], nick: null }),
    ),
  };
  const recorded: DestructiveAction[] = [];
  const roleRemovals: MemberRolesRemoved[] = [];
  const sink = {
    record: jest.fn((action: DestructiveAction) => {
      recorded.push(action);
      return Promise.resolve();
    }),
    recordRoleRemoval: jest.fn((removal: MemberRolesRemoved) => {
      roleRemovals.push(removal);
      return Promise.resolve();
    }),
  };
  const botRemovals = { record: jest.fn((_removal: BotRemoval) => Promise.resolve('incident-1')) };
  const journalled: { guildId: string; change?: JournalChange; entry?: JournalAuditEntry }[] = [];
  const journal = {
    change: (guildId: string, change: JournalChange) => journalled.push({ guildId, change }),
    auditEntry: (guildId: string, entry: JournalAuditEntry) => journalled.push({ guildId, entry }),
    flush: () => Promise.resolve(),
  };
  const readBack = { readBackUnnamed: jest.fn(() => Promise.resolve()) };
  const sut = new LiveSyncService(
    source,
    { enabled: true, pausePollMs: HOUR, entitlementRecheckMs: HOUR },
    control as unknown as LiveSyncControl,
    registry as unknown as GuildRegistry,
    entitlements as unknown as EntitlementsClient,
    platform as unknown as ChatPlatformClient,
    sink,
    undefined,
    botRemovals as unknown as BotRemovalRecorder,
    journal as unknown as ChangeJournal,
    undefined,
    undefined,
    readBack as unknown as BotRemovalReadBack,
  );

  return {
    sut,
    readBack,
    botRemovals,
    source,
    paused,
    features,
    registered,
    control,
    platform,
    sink,
    recorded,
    roleRemovals,
    journalled,
    setPlatformState: (state: GuildState) => {
      platformState = state;
    },
    /** Delivers events and waits until live sync has handled them. */
    emit: async (...events: Parameters<InMemoryGuildEventSource['emit']>) => {
      source.emit(...events);
      await sut.drain();
    },
  };
}

type Harness = ReturnType<typeof setup>;

const ADMINS = '100000000000000077';

const available = (state = guildState()): GuildEvent => ({
  type: 'guild_available',
  platformGuildId: state.guild.id,
  state,
});

let auditIds = 1191168914227200000n;
function audit(
  actionType: number,
  actorId: string,
  fields: { target?: string; reason?: string; changes?: AuditLogEntry['changes'] } = {},
): GuildEvent {
  auditIds += 1n;
  return {
    type: 'audit_log_entry',
    platformGuildId: GUILD,
    entry: {
      id: auditIds.toString(),
      actorId,
      actionType,
      targetId: fields.target ?? GENERAL,
      reason: fields.reason ?? null,
      changes: fields.changes ?? [],
    },
  };
}

function counterValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  return register
    .getSingleMetric(name)!
    .get()
    .then(({ values }) =>
      values
        .filter((value) => Object.entries(labels).every(([key, label]) => value.labels[key] === label))
        .reduce((sum, value) => sum + value.value, 0),
    );
}

describe(LiveSyncService.name, () => {
  let h: Harness;

  // Failures are logged on purpose here; the assertions say what matters.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });

  beforeEach(async () => {
    h = setup();
    await h.sut.start();
    await h.emit({ type: 'ready', botUserId: BOT });
  });

  afterEach(() => h.sut.stop());

  describe('the change journal', () => {
    it('keeps what each applied change replaced, and every audit-log entry but the bot’s own', async () => {
      await h.emit(
        available(),
        { type: 'channel_delete', platformGuildId: GUILD, channelId: RULES },
        audit(12, RAIDER, { target: RULES }),
        audit(12, BOT, { target: GENERAL }),
      );

      expect(
        h.journalled.map(({ guildId, change, entry }) => [guildId, change?.change, entry?.actor_id]),
      ).toEqual([
        [GUILD_ID, 'delete', undefined],
        [GUILD_ID, undefined, RAIDER],
      ]);
      expect(h.journalled[0].change).toMatchObject({
        object_id: RULES,
        before: { channel: guildState().channels[2] },
      });
    });

    it('keeps nothing of a change the mirror does not apply (a restore’s, while paused)', async () => {
      await h.emit(available());
      h.paused.add(GUILD_ID);
      await h.emit({ type: 'channel_delete', platformGuildId: GUILD, channelId: RULES });
      expect(h.journalled).toEqual([]);
    });
  });

  describe('the mirror', () => {
    it('is seeded from GUILD_CREATE and follows the guild’s events', async () => {
      await h.emit(
        available(),
        { type: 'channel_delete', platformGuildId: GUILD, channelId: RULES },
        {
          type: 'role_update',
          platformGuildId: GUILD,
          role: { ...guildState().roles[2], name: 'moderators' },
        },
        {
          type: 'channel_create',
          platformGuildId: GUILD,
          channel: channel('100000000000000025', 'lobby', 3, { parent_id: CATEGORY }),
          overrides: [],
        },
      );

      const state = h.sut.mirrorOf(GUILD)!;
      expect(state.channels.map((c) => c.name)).toEqual(['text', 'general', 'lobby']);
      expect(state.roles.map((r) => r.name)).toEqual(['@everyone', 'members', 'moderators']);
      expect(state.permission_overrides).toEqual([]);
      expect(state.guild.rules_channel_id).toBeNull();
      expect(h.platform.getGuildState).not.toHaveBeenCalled();
      expect(await counterValue('live_sync_guilds')).toBe(1);
    });

    it('is read from the platform when an event comes for a guild it holds nothing of', async () => {
      const live = { ...guildState(), roles: guildState().roles.slice(0, 2) };
      h.setPlatformState(live);

      await h.emit({ type: 'role_delete', platformGuildId: GUILD, roleId: MODS });

      expect(h.platform.getGuildState).toHaveBeenCalledWith(GUILD);
      // The read came after the event, so the event is in it already.
      expect(h.sut.mirrorOf(GUILD)).toEqual(new GuildMirror(live).state());
    });

    it('counts the events it receives by type', async () => {
      const before = await counterValue('live_sync_events_total', { type: 'channel_delete' });
      await h.emit(available(), { type: 'channel_delete', platformGuildId: GUILD, channelId: RULES });
      expect(await counterValue('live_sync_events_total', { type: 'channel_delete' })).toBe(before + 1);
    });

    it('forgets the guilds of a shard another replica follows now, and only those', async () => {
      const other = guildState('100000000004194305'); // (id >> 22) = 1: shard 1 of 2; GUILD is on shard 0
      h.registered.set(other.guild.id, GUILD_ID);
      await h.emit(available(), available(other));
      expect(await counterValue('live_sync_followed_guilds')).toBe(2);

      await h.emit({ type: 'shard_released', shardId: 1, shardCount: 2 });

      expect(h.sut.status().map((guild) => guild.platform_guild_id)).toEqual([GUILD]);
      expect(h.sut.mirrorOf(GUILD)).toEqual(guildState());
      expect(await counterValue('live_sync_followed_guilds')).toBe(1);
      expect(await counterValue('live_sync_guilds')).toBe(1);
    });

    it('forgets a guild the bot was removed from, and records the removal', async () => {
      await h.emit(available(), { type: 'guild_unavailable', platformGuildId: GUILD, removed: true });
      expect(h.sut.mirrorOf(GUILD)).toBeNull();
      expect(h.sut.status()).toEqual([]);
      expect(h.botRemovals.record).toHaveBeenCalledWith({
        platformGuildId: GUILD,
        action: 'bot_removed',
        actorPlatformUserId: null,
        auditLogEntryId: null,
        at: expect.any(Number),
        incident: false,
      });
    });

    it('names who removed the bot when their entry came first, and opens an incident with AntiNuke', async () => {
      h.features.set(GUILD_ID, [...PRO, 'ANTINUKE_DETECT']);
      const kick = audit(20, RAIDER, { target: BOT });
      await h.emit(available(), kick, { type: 'guild_unavailable', platformGuildId: GUILD, removed: true });
      expect(h.botRemovals.record).toHaveBeenCalledWith(
        expect.objectContaining({
          actorPlatformUserId: RAIDER,
          auditLogEntryId: (kick as { entry: AuditLogEntry }).entry.id,
          incident: true,
        }),
      );
    });

    it('opens an incident once when a role change leaves the bot unable to read the audit log', async () => {
      const state = guildState();
      const auditors = platformRole(ADMINS, { permissions: PermissionFlagsBits.ViewAuditLog.toString() });
      const update = (permissions: bigint): GuildEvent => ({
        type: 'role_update',
        platformGuildId: GUILD,
        role: { ...auditors, permissions: permissions.toString() },
      });
      await h.emit(
        available({ ...state, roles: [...state.roles, auditors] }),
        update(PermissionFlagsBits.ViewAuditLog),
      );
      expect(h.platform.getMember).not.toHaveBeenCalled();

      await h.emit(update(0n), update(0n));
      expect(h.platform.getMember).toHaveBeenCalledWith(GUILD, BOT);
      expect(h.botRemovals.record).toHaveBeenCalledTimes(1);
      expect(h.botRemovals.record).toHaveBeenCalledWith(
        expect.objectContaining({
          platformGuildId: GUILD,
          action: 'bot_audit_log_lost',
          actorPlatformUserId: null,
        }),
      );
    });

    it('opens none when the bot still reads the audit log through another role', async () => {
      const state = guildState();
      const auditors = platformRole(ADMINS, { permissions: PermissionFlagsBits.ViewAuditLog.toString() });
      const admins = platformRole('100000000000000078', {
        permissions: PermissionFlagsBits.Administrator.toString(),
      });
      h.platform.getMember.mockResolvedValueOnce({
        user: { id: BOT },
        roles: [ADMINS, admins.id],
        nick: null,
      });
      await h.emit(available({ ...state, roles: [...state.roles, auditors, admins] }), {
        type: 'role_delete',
        platformGuildId: GUILD,
        roleId: ADMINS,
      });
      expect(h.platform.getMember).toHaveBeenCalledTimes(1);
      expect(h.botRemovals.record).not.toHaveBeenCalled();
    });

    it('does not take an outage for a removal', async () => {
      await h.emit(available(), { type: 'guild_unavailable', platformGuildId: GUILD, removed: false });
      expect(h.sut.mirrorOf(GUILD)).toBeNull();
      expect(h.botRemovals.record).not.toHaveBeenCalled();
    });
  });

  describe('plans', () => {
    it('leaves a guild without RECOVERY_LIVE_SYNC alone: no mirror, no reports', async () => {
      h.features.set(GUILD_ID, ['RECOVERY_RESTORE']);
      await h.emit(available(), audit(12, RAIDER), audit(12, RAIDER), audit(12, RAIDER));

      expect(h.sut.mirrorOf(GUILD)).toBeNull();
      expect(h.sink.record).not.toHaveBeenCalled();
      expect(h.platform.getGuildState).not.toHaveBeenCalled();
    });

    it('leaves a guild that is not registered alone', async () => {
      const other = guildState('100000000000000099');
      await h.emit(available(other), { ...audit(12, RAIDER), platformGuildId: other.guild.id });

      expect(h.sut.mirrorOf(other.guild.id)).toBeNull();
      expect(h.sink.record).not.toHaveBeenCalled();
    });

    it('follows a guild registered after the gateway announced it, from its next event', async () => {
      h.registered.delete(GUILD);
      await h.emit(available());
      expect(h.sut.mirrorOf(GUILD)).toBeNull();

      h.registered.set(GUILD, GUILD_ID);
      await h.emit(audit(12, RAIDER));

      expect(h.sut.mirrorOf(GUILD)).toEqual(guildState());
      expect(h.recorded).toEqual([expect.objectContaining({ guild_id: GUILD_ID, kind: 'channel_delete' })]);
    });

    it('reads back the removals of a guild it mirrors again (the bot back), once per mirroring', async () => {
      h.registered.delete(GUILD);
      await h.emit(available());
      expect(h.readBack.readBackUnnamed).not.toHaveBeenCalled();

      h.registered.set(GUILD, GUILD_ID);
      await h.emit(audit(12, RAIDER), audit(12, RAIDER));

      expect(h.readBack.readBackUnnamed).toHaveBeenCalledTimes(1);
      expect(h.readBack.readBackUnnamed).toHaveBeenCalledWith({ id: GUILD_ID, platformGuildId: GUILD });
    });

    it('starts mirroring after an upgrade and stops after a downgrade', async () => {
      h.features.set(GUILD_ID, []);
      await h.emit(available());
      expect(h.sut.mirrorOf(GUILD)).toBeNull();

      h.features.set(GUILD_ID, PRO);
      h.sut.recheckEntitlements();
      await h.sut.drain();
      expect(h.sut.mirrorOf(GUILD)).toEqual(guildState());
      expect(h.platform.getGuildState).toHaveBeenCalledTimes(1);

      h.features.set(GUILD_ID, []);
      h.sut.recheckEntitlements();
      await h.sut.drain();
      expect(h.sut.mirrorOf(GUILD)).toBeNull();
    });
  });

  describe('a restore’s pause', () => {
    it('buffers the guild’s events while paused, and still reports a raider but not the bot', async () => {
      await h.emit(available());
      h.paused.add(GUILD_ID);

      await h.emit(
        { type: 'channel_delete', platformGuildId: GUILD, channelId: RULES },
        audit(12, RAIDER, { target: RULES, reason: `Restore ${RESTORE_JOB}` }),
        audit(32, BOT, { target: MODS, reason: `Restore ${RESTORE_JOB}` }),
      );

      expect(h.recorded.map((a) => [a.kind, a.actor_platform_user_id, a.target_id])).toEqual([
        ['channel_delete', RAIDER, RULES],
      ]);
      expect(h.sut.status()).toEqual([
        { platform_guild_id: GUILD, mirrored: true, paused: true, buffered_events: 3 },
      ]);
      expect(h.sut.mirrorOf(GUILD)).toBeNull();

      h.sut.checkPauses();
      await h.sut.drain();
      expect(h.sut.status()[0].paused).toBe(true);
      expect(h.platform.getGuildState).not.toHaveBeenCalled();
    });

    it('on resume drops the buffer and re-reads the guild from the platform', async () => {
      await h.emit(available());
      h.paused.add(GUILD_ID);
      await h.emit(
        { type: 'channel_delete', platformGuildId: GUILD, channelId: GENERAL },
        { type: 'role_delete', platformGuildId: GUILD, roleId: MODS },
      );
      const restored = { ...guildState(), channels: guildState().channels.slice(0, 2) };
      h.setPlatformState(restored);

      h.paused.delete(GUILD_ID);
      h.sut.checkPauses();
      await h.sut.drain();

      expect(h.platform.getGuildState).toHaveBeenCalledTimes(1);
      expect(h.sut.mirrorOf(GUILD)).toEqual(new GuildMirror(restored).state());
      expect(h.sut.status()).toEqual([
        { platform_guild_id: GUILD, mirrored: true, paused: false, buffered_events: 0 },
      ]);

      await h.emit({ type: 'role_delete', platformGuildId: GUILD, roleId: MODS });
      expect(h.sut.mirrorOf(GUILD)?.roles.map((r) => r.id)).not.toContain(MODS);
    });

    it('resumes on the next event when the restore ended between two checks', async () => {
      await h.emit(available());
      h.paused.add(GUILD_ID);
      await h.emit({ type: 'channel_delete', platformGuildId: GUILD, channelId: GENERAL });
      h.paused.delete(GUILD_ID);

      await h.emit(audit(12, RAIDER, { target: RULES }));

      expect(h.platform.getGuildState).toHaveBeenCalledTimes(1);
      expect(h.sut.status()[0]).toMatchObject({ paused: false, buffered_events: 0 });
      expect(h.recorded).toHaveLength(1);
    });

    it('holds the events when the pause cannot be checked, and still reports a raider', async () => {
      await h.emit(available());
      h.control.isPaused.mockRejectedValueOnce(new Error('database down'));

      await h.emit(audit(12, RAIDER));

      expect(h.recorded).toEqual([expect.objectContaining({ actor_platform_user_id: RAIDER })]);
      expect(h.sut.status()[0]).toMatchObject({ paused: true, buffered_events: 1 });
    });
  });

  describe('destructive actions', () => {
    it('are handed to AntiNuke with our guild id, the kind, the actor and the target', async () => {
      const before = await counterValue('live_sync_destructive_actions_total', { kind: 'member_ban' });
      await h.emit(
        available(),
        audit(12, RAIDER, { target: GENERAL }),
        audit(32, RAIDER, { target: MODS }),
        audit(22, RAIDER, { target: '300000000000000001' }),
        audit(20, RAIDER, { target: '300000000000000002' }),
        audit(10, RAIDER),
      );

      expect(h.recorded.map((a) => [a.kind, a.actor_platform_user_id, a.target_id])).toEqual([
        ['channel_delete', RAIDER, GENERAL],
        ['role_delete', RAIDER, MODS],
        ['member_ban', RAIDER, '300000000000000001'],
        ['member_kick', RAIDER, '300000000000000002'],
      ]);
      expect(h.recorded[0]).toMatchObject({ guild_id: GUILD_ID, platform_guild_id: GUILD });
      expect(new Set(h.recorded.map((a) => a.audit_log_entry_id)).size).toBe(4);
      expect(await counterValue('live_sync_destructive_actions_total', { kind: 'member_ban' })).toBe(
        before + 1,
      );
    });

    it('leave out the bot’s own, whatever their reason, however late they come', async () => {
      const before = await counterValue('live_sync_own_actions_ignored_total');
      await h.emit(
        available(),
        audit(12, BOT),
        audit(32, BOT, { reason: `Restore ${RESTORE_JOB}` }),
        audit(22, BOT, { reason: 'AntiNuke incident' }),
      );

      expect(h.sink.record).not.toHaveBeenCalled();
      expect(await counterValue('live_sync_own_actions_ignored_total')).toBe(before + 3);
    });

    it('are reported when a raider copies a restore’s reason, of this guild’s restore or any other', async () => {
      await h.emit(
        available(),
        audit(12, RAIDER, { target: GENERAL, reason: `Restore ${RESTORE_JOB}` }),
        audit(32, '300000000000000005', { target: MODS, reason: `Restore ${RESTORE_JOB}` }),
        audit(12, RAIDER, { target: RULES, reason: 'Restore 0190ffff-0000-7000-8000-000000000000' }),
      );

      expect(h.recorded.map((a) => [a.kind, a.actor_platform_user_id, a.target_id])).toEqual([
        ['channel_delete', RAIDER, GENERAL],
        ['role_delete', '300000000000000005', MODS],
        ['channel_delete', RAIDER, RULES],
      ]);
    });

    it('count roles a member lost and hand them to AntiNuke for the incident, never the bot’s', async () => {
      const removed = { changes: [{ key: '$remove', new_value: [{ id: MODS, name: 'Mods' }] }] };
      await h.emit(
        available(),
        audit(25, RAIDER, { target: '300000000000000001', ...removed }),
        audit(25, BOT, { target: '300000000000000002', ...removed }),
        audit(25, RAIDER, {
          target: '300000000000000003',
          changes: [{ key: '$add', new_value: [{ id: MODS, name: 'Mods' }] }],
        }),
      );

      expect(h.recorded).toEqual([
        expect.objectContaining({
          kind: 'member_role_remove',
          weight: 1,
          actor_platform_user_id: RAIDER,
          target_id: '300000000000000001',
        }),
      ]);
      expect(h.roleRemovals).toEqual([
        expect.objectContaining({
          guild_id: GUILD_ID,
          actor_platform_user_id: RAIDER,
          target_user_id: '300000000000000001',
          roles: [{ id: MODS, name: 'Mods' }],
        }),
      ]);
    });

    it('count giving a member a role the mirror holds with a dangerous permission', async () => {
      const state = guildState();
      const admins = platformRole(ADMINS, {
        name: 'admins',
        permissions: PermissionFlagsBits.Administrator.toString(),
      });
      const give = (roleId: string) => ({
        target: '300000000000000001',
        changes: [{ key: '$add', new_value: [{ id: roleId, name: 'x' }] }],
      });
      await h.emit(
        available({ ...state, roles: [...state.roles, admins] }),
        audit(25, RAIDER, give(MODS)),
        audit(25, RAIDER, give(ADMINS)),
      );
      expect(h.recorded).toEqual([expect.objectContaining({ kind: 'dangerous_role_grant', weight: 1 })]);
    });

    it('keep coming after AntiNuke failed to take one', async () => {
      h.sink.record.mockRejectedValueOnce(new Error('engine down'));
      await h.emit(available(), audit(12, RAIDER), audit(32, RAIDER), audit(22, RAIDER));
      expect(h.sink.record).toHaveBeenCalledTimes(3);
      expect(h.recorded.map((a) => a.kind)).toEqual(['role_delete', 'member_ban']);
    });

    it('are only counted when no AntiNuke is wired', async () => {
      const source = new InMemoryGuildEventSource();
      const sut = new LiveSyncService(
        source,
        { enabled: true, pausePollMs: HOUR, entitlementRecheckMs: HOUR },
        { isPaused: () => Promise.resolve(false) } as unknown as LiveSyncControl,
        {
          findByPlatformId: () => Promise.resolve({ id: GUILD_ID, platformGuildId: GUILD, active: true }),
        } as unknown as GuildRegistry,
        { get: () => Promise.resolve({ features: PRO }) } as unknown as EntitlementsClient,
        { getGuildState: () => Promise.resolve(guildState()) } as unknown as ChatPlatformClient,
      );
      const before = await counterValue('live_sync_destructive_actions_total', { kind: 'channel_delete' });
      await sut.start();
      source.emit(available(), audit(12, RAIDER));
      await sut.drain();
      await sut.stop();
      expect(await counterValue('live_sync_destructive_actions_total', { kind: 'channel_delete' })).toBe(
        before + 1,
      );
    });
  });

  describe('the gateway connection', () => {
    afterEach(() => jest.useRealTimers());

    it('is tried again after 1 s, 2 s, 4 s… as a retry on the scheduler, which stop cancels', async () => {
      jest.useFakeTimers();
      const source = new InMemoryGuildEventSource();
      const start = jest.spyOn(source, 'start').mockRejectedValue(new Error('gateway down'));
      const scheduler = new SchedulerRegistry();
      const sut = new LiveSyncService(
        source,
        { enabled: true, pausePollMs: HOUR, entitlementRecheckMs: HOUR },
        {} as LiveSyncControl,
        {} as GuildRegistry,
        {} as EntitlementsClient,
        {} as ChatPlatformClient,
        null,
        scheduler,
      );
      const tries = () => start.mock.calls.length;
      sut.onApplicationBootstrap();
      await jest.advanceTimersByTimeAsync(0);
      expect(start).toHaveBeenCalledTimes(1);
      expect(scheduler.getTimeouts()).toEqual(['live-sync-connect']);
      await expectRetriesAfter({ scheduler, name: 'live-sync-connect' }, tries, [1_000, 2_000]);
      expect(scheduler.getTimeouts()).toEqual(['live-sync-connect']);

      await expectNoRetryAfterStop(() => sut.stop(), scheduler, tries);
    });
  });
});
