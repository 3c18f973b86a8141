import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { ChatPlatformClient, type GuildState, shardOf } from '@lib/chat-platform';
import { EntitlementsClient } from '@lib/entitlements';
import { RetryTimer, ScheduledPass, TtlCache } from '@lib/runtime';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AuditLogEvent } from 'discord-api-types/v10';
import {
  DESTRUCTIVE_ACTION_SINK,
  type DestructiveAction,
  type DestructiveActionSink,
} from '../antinuke/destructive-action';
import { BotRemovalRecorder } from '../antinuke/bot-removal.recorder';
import { BotRemovalReadBack } from '../antinuke/undo/bot-removal-read-back';
import { ImmediateQuarantine } from '../antinuke/quarantine/immediate-quarantine';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { snowflakeTime, toDestructiveAction, toMemberRolesRemoved } from './destructive-actions';
import { GuildAccessChanges } from '../guilds/guild-access-changes';
import { toJournalAuditEntry } from './change-journal-entry';
import { ChangeJournal } from './change-journal';
import {
  GUILD_EVENT_SOURCE,
  type AuditLogEntry,
  type GuildEvent,
  type GuildEventSource,
  type SourceEvent,
} from './guild-events';
import { mayTakeAuditLog, readsAuditLog } from './audit-log-access';
import { GuildMirror } from './guild-mirror';
import { LiveSyncControl } from './live-sync-control.repository';
import { liveSyncMetrics as metrics } from './live-sync.metrics';
import { SerialLanes } from './serial-lanes';

export interface LiveSyncOptions {
  /** Take part in live sync in this process (`LIVE_SYNC_ENABLED`); the shards are spread over every replica that does. */
  enabled: boolean;
  /** How often a paused guild's pause row is looked at, to resume soon after the restore ends (`LIVE_SYNC_PAUSE_POLL_MS`). */
  pausePollMs: number;
  /** How often every guild's plan is looked at again, the entitlements cache answering most (`LIVE_SYNC_ENTITLEMENT_RECHECK_MS`). */
  entitlementRecheckMs: number;
}

export const LIVE_SYNC_OPTIONS = Symbol('LIVE_SYNC_OPTIONS');

/** A restore's events are dropped at resume anyway; beyond this many only the count is kept. */
const MAX_BUFFERED_EVENTS = 10_000;
/** After a failed read of a guild, wait this long before the next try. */
const SEED_RETRY_MS = 30_000;
const CONNECT_RETRY_MAX_MS = 60_000;
/** A platform guild id's registry entry is kept this long (a removal is noticed after it). */
const REGISTRY_CACHE_MS = 60_000;

interface RegisteredGuild {
  id: string;
  platformGuildId: string;
}

/** What live sync holds for one platform guild the bot is in. */
interface GuildSync {
  platformGuildId: string;
  mirror: GuildMirror | null;
  /** Events received up to this sequence number were in the state the mirror was read from. */
  seededThrough: number;
  /** The last answer about the plan, used while licensing does not answer. */
  entitled: boolean;
  paused: boolean;
  buffered: GuildEvent[];
  droppedFromBuffer: number;
  nextSeedAttemptAt: number;
  /** The audit-log entry that kicked or banned the bot, when it arrived before the removal. */
  botRemovedBy: AuditLogEntry | null;
  /** The bot was found unable to read the audit log (its incident opened). */
  auditLogLost: boolean;
}

export interface LiveSyncGuildStatus {
  platform_guild_id: string;
  mirrored: boolean;
  paused: boolean;
  buffered_events: number;
}

/**
 * Live sync (docs/decisions/live-sync.md): a mirror of the roles, channels, overrides and
 * settings of every guild whose plan has RECOVERY_LIVE_SYNC, kept from the gateway's events, and
 * the destructive actions in those guilds handed to AntiNuke with their actor.
 *
 * While a restore has paused a guild (`LiveSyncControl`), its events are buffered, not applied:
 * the mirror does not follow the restore's half-done changes. On resume the buffer is dropped and
 * the guild re-read from the platform. Audit-log entries are inspected paused or not: a raid
 * during a restore is still a raid. The only actor never reported is the bot itself, whose user
 * id the gateway's READY names; an audit-log reason proves nothing, since anyone can send
 * `X-Audit-Log-Reason: Restore <job id>` after reading it in the audit log.
 *
 * Its events come from the gateway shards this replica holds (ShardCoordinator): any number of
 * replicas take part, each guild's events reach exactly one of them, and when this replica lets a
 * shard go (a rebalance, a lost lease) the guilds on it are forgotten here.
 */
@Injectable()
export class LiveSyncService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LiveSyncService.name);
  private readonly guilds = new Map<string, GuildSync>();
  private readonly registry = new TtlCache<RegisteredGuild | null>(REGISTRY_CACHE_MS);
  private readonly lanes = new SerialLanes((platformGuildId, error) =>
    this.logger.error({ platform_guild_id: platformGuildId, err: String(error) }, 'live sync event failed'),
  );
  private botUserId: string | undefined;
  /** Sequence number of the last event received. */
  private received = 0;
  /** The pause check and the plan check, on the app's scheduler while connected. */
  private readonly passes: { pauses: ScheduledPass; plans: ScheduledPass };
  /** The next try to connect to the gateway after one failed, on the same scheduler. */
  private readonly reconnect: RetryTimer;
  private running = false;
  /** Kept as guilds change rather than counted on every event: a shard brings thousands at once. */
  private mirrored = 0;
  private pausedCount = 0;
  /** Guilds (ours) whose audit log is being read back now, each once at a time. */
  private readonly readingBack = new Set<string>();

  constructor(
    @Inject(GUILD_EVENT_SOURCE) private readonly source: GuildEventSource,
    @Inject(LIVE_SYNC_OPTIONS) private readonly options: LiveSyncOptions,
    private readonly control: LiveSyncControl,
    private readonly guildRegistry: GuildRegistry,
    private readonly entitlements: EntitlementsClient,
    private readonly platform: ChatPlatformClient,
    /** AntiNuke's (AntiNukeModule is global); without it actions are counted and logged only. */
    @Optional()
    @Inject(DESTRUCTIVE_ACTION_SINK)
    private readonly sink: DestructiveActionSink | null = null,
    /** The app's (ScheduleModule); a test's service gets one of its own. */
    @Optional() scheduler: SchedulerRegistry = new SchedulerRegistry(),
    /** AntiNuke's; without it a removal only forgets the guild. */
    @Optional()
    @Inject(BotRemovalRecorder)
    private readonly botRemovals: BotRemovalRecorder | null = null,
    /** Where before-images and audit-log entries are kept for undoing a raid; none in unit tests. */
    @Optional() @Inject(ChangeJournal) private readonly journal: ChangeJournal | null = null,
    /** Ends cached permission answers on member and role changes; a test's service may go without. */
    @Optional()
    @Inject(GuildAccessChanges)
    private readonly accessChanges: GuildAccessChanges | null = null,
    /** AntiNuke's quarantine at the moment the threshold is crossed; without it the workflow alone acts. */
    @Optional()
    @Inject(ImmediateQuarantine)
    private readonly immediate: ImmediateQuarantine | null = null,
    /** Names the raider of a kick of the bot once it is back; without it the undo does, when asked. */
    @Optional()
    @Inject(BotRemovalReadBack)
    private readonly readBack: BotRemovalReadBack | null = null,
  ) {
    this.passes = {
      pauses: new ScheduledPass(scheduler, 'live-sync-pauses', () => this.resumeEnded()),
      plans: new ScheduledPass(scheduler, 'live-sync-plans', () => this.followPlans()),
    };
    this.reconnect = new RetryTimer(scheduler, 'live-sync-connect');
  }

  onApplicationBootstrap(): void {
    if (!this.options.enabled) return;
    if (!this.sink) this.logger.warn('no AntiNuke here: destructive actions are counted, not reported');
    // Readiness does not wait for the gateway: the connection is tried, and retried, behind it.
    this.connect(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Connects the source and starts the pause and plan checks. */
  async start(): Promise<void> {
    this.running = true;
    await this.source.start((event) => this.receive(event));
    // Shut down while connecting: the connection just made is the last.
    if (!this.running) return this.source.stop();
    this.passes.pauses.every(this.options.pausePollMs);
    this.passes.plans.every(this.options.entitlementRecheckMs);
    this.logger.log('live sync connected to the gateway');
  }

  async stop(): Promise<void> {
    this.running = false;
    this.reconnect.cancel();
    // Each waits for its pass in flight, whose lane tasks then finish before the lanes drain.
    await Promise.all([this.passes.pauses.stop(), this.passes.plans.stop()]);
    await this.source.stop();
    await this.lanes.drain();
    await this.journal?.flush();
  }

  /** Every queued event handled: for tests and shutdown. */
  drain(): Promise<void> {
    return this.lanes.drain();
  }

  /** The mirrored state of a guild, or null when it is not mirrored (not entitled, paused, not read yet). */
  mirrorOf(platformGuildId: string): GuildState | null {
    const sync = this.guilds.get(platformGuildId);
    return sync?.mirror && !sync.paused ? sync.mirror.state() : null;
  }

  /** Diagnostics: every guild the gateway reported, mirrored or not. */
  status(): LiveSyncGuildStatus[] {
    return [...this.guilds.values()].map((sync) => ({
      platform_guild_id: sync.platformGuildId,
      mirrored: sync.mirror !== null,
      paused: sync.paused,
      buffered_events: sync.buffered.length + sync.droppedFromBuffer,
    }));
  }

  /** Resumes guilds whose restore has ended (the scheduled pause check; public for tests). */
  checkPauses(): void {
    void this.resumeEnded();
  }

  /** Starts or ends mirroring as plans change (the scheduled plan check; public for tests). */
  recheckEntitlements(): void {
    void this.followPlans();
  }

  /** The pause check's pass: one task on each paused guild's lane, done when all of them are. */
  private resumeEnded(): Promise<void> {
    const paused = [...this.guilds.values()].filter((sync) => sync.paused);
    return this.onLanes(paused, async (sync) => {
      const guild = await this.registered(sync.platformGuildId);
      if (!sync.paused || !guild) return;
      if (!(await this.pausedNow(guild))) await this.resume(sync, guild);
    });
  }

  /** The plan check's pass: one task on every guild's lane, done when all of them are. */
  private followPlans(): Promise<void> {
    return this.onLanes([...this.guilds.values()], async (sync) => {
      const guild = await this.registered(sync.platformGuildId);
      if (!guild || !(await this.isEntitled(sync, guild))) return this.dropMirror(sync);
      if (!sync.mirror && !sync.paused) await this.seed(sync, guild);
    });
  }

  /**
   * Queues `task` on each guild's lane, behind its events, and resolves once every one has run
   * (a failure is the lanes' to log): a pass ends when its work does, so the next cannot overlap it.
   */
  private async onLanes(syncs: GuildSync[], task: (sync: GuildSync) => Promise<void>): Promise<void> {
    await Promise.all(
      syncs.map(
        (sync) =>
          new Promise<void>((done) => this.lanes.run(sync.platformGuildId, () => task(sync).finally(done))),
      ),
    );
  }

  /** A kick or ban of the bot itself: its GUILD_DELETE follows. */
  private removesBot(entry: AuditLogEntry): boolean {
    return (
      this.botUserId !== undefined &&
      entry.targetId === this.botUserId &&
      (entry.actionType === Number(AuditLogEvent.MemberKick) ||
        entry.actionType === Number(AuditLogEvent.MemberBanAdd))
    );
  }

  /** The source's listener: counts the event and queues it on its guild's lane. */
  private receive(event: SourceEvent): void {
    metrics.events.inc({ type: event.type });
    if (event.type === 'ready') {
      this.botUserId = event.botUserId;
      return;
    }
    if (event.type === 'shard_released') return this.forgetShard(event.shardId, event.shardCount);
    if (event.type === 'guilds_known') return this.know(event.platformGuildIds);
    this.accessChanges?.notice(event);
    if (event.type === 'member_update') return;
    const sequence = ++this.received;
    this.lanes.run(event.platformGuildId, () => this.handle(event, sequence));
  }

  private async handle(event: GuildEvent, sequence: number): Promise<void> {
    if (event.type === 'guild_unavailable') {
      if (event.removed) await this.botRemoved(event.platformGuildId);
      // Removed, or in an outage: either way what the mirror holds can no longer be trusted.
      this.forget(event.platformGuildId);
      return;
    }
    const sync = this.syncOf(event.platformGuildId);
    const guild = await this.registered(event.platformGuildId);
    if (!guild || !(await this.isEntitled(sync, guild))) return this.dropMirror(sync);
    const paused = await this.pausedNow(guild);
    if (event.type === 'audit_log_entry') {
      if (event.entry.actorId !== this.botUserId)
        this.journal?.auditEntry(guild.id, toJournalAuditEntry(event.entry));
      await this.inspect(guild, event.entry, sync);
    }
    if (paused) return this.hold(sync, event);
    if (sync.paused) await this.resume(sync, guild);

    const auditLogAtRisk = sync.mirror !== null && mayTakeAuditLog(sync.mirror, event);
    if (event.type === 'guild_available') {
      if (!sync.mirror) this.readBackRemovals(guild);
      this.setMirror(sync, new GuildMirror(event.state), sequence);
    } else if (!sync.mirror) {
      await this.seed(sync, guild);
    } else if (sequence > sync.seededThrough) {
      this.keepBeforeImage(guild, sync.mirror, event);
      sync.mirror.apply(event);
    }
    if (auditLogAtRisk) await this.checkAuditLogAccess(sync, guild);
  }

  /**
   * A role that let its holders read the audit log lost that, or went: when the bot was among them,
   * AntiNuke is blind from now on, which opens an incident at once (once, until the bot reads the
   * audit log again). The bot's roles are read from the platform; who changed the role, the audit
   * log the bot can no longer read would have said.
   */
  private async checkAuditLogAccess(sync: GuildSync, guild: RegisteredGuild): Promise<void> {
    if (!sync.mirror || !this.botUserId || !this.botRemovals) return;
    let roles: string[];
    try {
      roles = (await this.platform.getMember(guild.platformGuildId, this.botUserId)).roles;
    } catch (error) {
      this.logger.warn({ guild_id: guild.id, err: String(error) }, 'the bot’s roles not read');
      return;
    }
    const reads = readsAuditLog(sync.mirror.state(), this.botUserId, roles);
    if (reads || sync.auditLogLost) {
      sync.auditLogLost = !reads;
      return;
    }
    sync.auditLogLost = true;
    const incident = await this.entitlements.get(guild.id).then(
      ({ features }) => features.includes('ANTINUKE_DETECT'),
      () => true,
    );
    try {
      await this.botRemovals.record({
        platformGuildId: guild.platformGuildId,
        action: 'bot_audit_log_lost',
        actorPlatformUserId: null,
        auditLogEntryId: null,
        at: Date.now(),
        incident,
      });
    } catch (error) {
      this.logger.error(
        { guild_id: guild.id, err: String(error) },
        'the bot’s loss of the audit log was not recorded',
      );
    }
  }

  /** The object the event is about to change, as the mirror holds it, into the change journal. */
  private keepBeforeImage(guild: RegisteredGuild, mirror: GuildMirror, event: GuildEvent): void {
    if (!this.journal) return;
    const before = mirror.beforeImage(event);
    if (before) this.journal.change(guild.id, before);
  }

  /**
   * Hands a destructive action to AntiNuke unless the bot did it (a restore's writes, AntiNuke's
   * own role removals). Who did it is the platform's word (the entry's actor); the reason is the
   * actor's own text and is not looked at. Which roles are dangerous the mirror tells, before the
   * event is applied (paused or not mirrored yet: none is known dangerous). Roles taken from a
   * member are both counted and recorded for the actor's incident.
   */
  private async inspect(guild: RegisteredGuild, entry: AuditLogEntry, sync: GuildSync): Promise<void> {
    if (this.removesBot(entry)) sync.botRemovedBy = entry;
    const mirror = sync.paused ? null : sync.mirror;
    const action = toDestructiveAction(guild, entry, (roleId) => mirror?.rolePermissions(roleId) ?? null);
    if (action) await this.report(action, guild, () => (sync.paused ? null : (sync.mirror?.state() ?? null)));
    await this.inspectRoleRemoval(guild, entry);
  }

  /**
   * The bot was removed from the guild (not an outage): the registry stops protecting it, and with
   * AntiNuke in the plan an incident opens at once. Who removed it is known only when the entry
   * that did reached live sync first; the platform stops showing the bot the audit log as it goes.
   * A plan that cannot be checked counts as having AntiNuke: a missed raid costs more than a DM.
   */
  private async botRemoved(platformGuildId: string): Promise<void> {
    const guild = await this.registered(platformGuildId);
    if (!guild || !this.botRemovals) return;
    const removedBy = this.guilds.get(platformGuildId)?.botRemovedBy ?? null;
    const incident = await this.entitlements.get(guild.id).then(
      ({ features }) => features.includes('ANTINUKE_DETECT'),
      () => true,
    );
    try {
      await this.botRemovals.record({
        platformGuildId,
        action: 'bot_removed',
        actorPlatformUserId: removedBy?.actorId ?? null,
        auditLogEntryId: removedBy?.id ?? null,
        at: removedBy ? snowflakeTime(removedBy.id).getTime() : Date.now(),
        incident,
      });
      metrics.botRemovals.inc();
    } catch (error) {
      this.logger.error({ guild_id: guild.id, err: String(error) }, 'the bot’s removal was not recorded');
    }
  }

  /**
   * Signals the action to the guild's workflow and, at the same time, lets the immediate
   * quarantine score it: when it crosses the threshold, the actor is quarantined here at once
   * (ImmediateQuarantine), the mirror answering what it can of the guild.
   */
  private async report(
    action: DestructiveAction,
    guild: RegisteredGuild,
    mirror: () => GuildState | null,
  ): Promise<void> {
    if (action.actor_platform_user_id === this.botUserId) {
      metrics.ownActionsIgnored.inc();
      return;
    }
    metrics.destructiveActions.inc({ kind: action.kind });
    this.logger.log(
      {
        guild_id: action.guild_id,
        kind: action.kind,
        weight: action.weight,
        actor_platform_user_id: action.actor_platform_user_id,
        target_id: action.target_id,
        audit_log_entry_id: action.audit_log_entry_id,
      },
      'destructive action',
    );
    if (!this.sink) return;
    const contained = this.immediate?.record(action, {
      platformGuildId: guild.platformGuildId,
      botUserId: this.botUserId,
      mirror,
    });
    try {
      await this.sink.record(action);
    } catch (error) {
      metrics.sinkFailures.inc();
      this.logger.error(
        { guild_id: action.guild_id, err: String(error) },
        'AntiNuke did not take the action',
      );
    }
    await contained;
  }

  /**
   * Hands roles taken from a member to AntiNuke, which records them on the actor's open incident
   * (their weight came with the destructive action of the same entry). The bot's own removals (AntiNuke's auto-action, a restore) are not reported.
   */
  private async inspectRoleRemoval(guild: RegisteredGuild, entry: AuditLogEntry): Promise<void> {
    const removal = toMemberRolesRemoved(guild, entry);
    if (!removal || removal.actor_platform_user_id === this.botUserId || !this.sink) return;
    try {
      await this.sink.recordRoleRemoval(removal);
    } catch (error) {
      metrics.sinkFailures.inc();
      this.logger.error(
        { guild_id: removal.guild_id, err: String(error) },
        'AntiNuke did not take the role removal',
      );
    }
  }

  private hold(sync: GuildSync, event: GuildEvent): void {
    if (!sync.paused) {
      sync.paused = true;
      this.pausedCount += 1;
      this.logger.log({ platform_guild_id: sync.platformGuildId }, 'live sync paused by a restore');
      this.updateGauges();
    }
    metrics.bufferedEvents.inc();
    if (sync.buffered.length < MAX_BUFFERED_EVENTS) sync.buffered.push(event);
    else sync.droppedFromBuffer += 1;
  }

  /** The restore is over: its events are dropped and the guild is read as it now is. */
  private async resume(sync: GuildSync, guild: RegisteredGuild): Promise<void> {
    const dropped = sync.buffered.length + sync.droppedFromBuffer;
    if (sync.paused) this.pausedCount -= 1;
    sync.paused = false;
    sync.buffered = [];
    sync.droppedFromBuffer = 0;
    sync.nextSeedAttemptAt = 0;
    metrics.resumes.inc();
    this.logger.log({ guild_id: guild.id, dropped_events: dropped }, 'live sync resumed after a restore');
    this.updateGauges();
    if (sync.entitled) await this.seed(sync, guild);
    else this.dropMirror(sync);
  }

  /** Reads the whole guild from the platform into the mirror; on failure the mirror waits for a later try. */
  private async seed(sync: GuildSync, guild: RegisteredGuild): Promise<void> {
    if (Date.now() < sync.nextSeedAttemptAt) return;
    const through = this.received;
    try {
      const state = await this.platform.getGuildState(guild.platformGuildId);
      if (!sync.mirror) this.readBackRemovals(guild);
      this.setMirror(sync, new GuildMirror(state), through);
    } catch (error) {
      sync.nextSeedAttemptAt = Date.now() + SEED_RETRY_MS;
      this.dropMirror(sync);
      this.logger.warn({ guild_id: guild.id, err: String(error) }, 'guild not read; mirrored again later');
    }
  }

  /**
   * The guild is mirrored here again, perhaps after the bot was kicked and added back: its
   * removals that name no raider are read back from the audit log (BotRemovalReadBack), off the
   * guild's lane, whose events do not wait for it.
   */
  private readBackRemovals(guild: RegisteredGuild): void {
    if (!this.readBack || this.readingBack.has(guild.id)) return;
    this.readingBack.add(guild.id);
    void this.readBack
      .readBackUnnamed(guild)
      .catch((error: unknown) =>
        this.logger.warn(
          { guild_id: guild.id, err: String(error) },
          'audit log not read back; the undo will',
        ),
      )
      .finally(() => this.readingBack.delete(guild.id));
  }

  /** Unknown answers count as paused: buffering is safe, mistaking a restore for a raid is not. */
  private async pausedNow(guild: RegisteredGuild): Promise<boolean> {
    try {
      return await this.control.isPaused(guild.id);
    } catch (error) {
      this.logger.warn({ guild_id: guild.id, err: String(error) }, 'pause not checked; held as paused');
      return true;
    }
  }

  private async isEntitled(sync: GuildSync, guild: RegisteredGuild): Promise<boolean> {
    try {
      const { features } = await this.entitlements.get(guild.id);
      sync.entitled = features.includes('RECOVERY_LIVE_SYNC');
    } catch (error) {
      this.logger.warn({ guild_id: guild.id, err: String(error) }, 'plan not checked; last answer kept');
    }
    return sync.entitled;
  }

  /**
   * Our guild for a platform guild id, when it is registered and active. Only a found guild is
   * cached: one registered a moment ago (on any replica) is followed from its next event.
   */
  private async registered(platformGuildId: string): Promise<RegisteredGuild | null> {
    const guild = await this.registry.get(platformGuildId, async () => {
      const found = await this.guildRegistry.findByPlatformId(platformGuildId);
      return found?.active ? { id: found.id, platformGuildId } : null;
    });
    if (!guild) this.registry.invalidate(platformGuildId);
    return guild;
  }

  private syncOf(platformGuildId: string): GuildSync {
    let sync = this.guilds.get(platformGuildId);
    if (!sync) {
      sync = {
        platformGuildId,
        mirror: null,
        seededThrough: 0,
        entitled: false,
        paused: false,
        buffered: [],
        droppedFromBuffer: 0,
        nextSeedAttemptAt: 0,
        botRemovedBy: null,
        auditLogLost: false,
      };
      this.guilds.set(platformGuildId, sync);
      this.updateGauges();
    }
    return sync;
  }

  private setMirror(sync: GuildSync, mirror: GuildMirror, seededThrough: number): void {
    if (!sync.mirror) this.mirrored += 1;
    sync.mirror = mirror;
    sync.seededThrough = seededThrough;
    this.updateGauges();
  }

  private dropMirror(sync: GuildSync): void {
    if (!sync.mirror) return;
    sync.mirror = null;
    this.mirrored -= 1;
    this.updateGauges();
  }

  private forget(platformGuildId: string): void {
    const sync = this.guilds.get(platformGuildId);
    if (sync?.mirror) this.mirrored -= 1;
    if (sync?.paused) this.pausedCount -= 1;
    this.guilds.delete(platformGuildId);
    this.registry.invalidate(platformGuildId);
    this.updateGauges();
  }

  /**
   * Another replica follows the shard now: each of its guilds is forgotten on its lane, behind the
   * events already queued there, so none of those brings the guild back.
   */
  private forgetShard(shardId: number, shardCount: number): void {
    for (const platformGuildId of [...this.guilds.keys()]) {
      if (shardOf(platformGuildId, shardCount) !== shardId) continue;
      this.lanes.run(platformGuildId, () => Promise.resolve(this.forget(platformGuildId)));
    }
  }

  /**
   * Guilds this process follows from now on without their state (a resumed session): each is
   * mirrored on its next event or by the plan check, as a guild that was not read yet.
   */
  private know(platformGuildIds: string[]): void {
    for (const platformGuildId of platformGuildIds) {
      this.lanes.run(platformGuildId, () => Promise.resolve(void this.syncOf(platformGuildId)));
    }
  }

  private updateGauges(): void {
    metrics.guilds.set(this.mirrored);
    metrics.followedGuilds.set(this.guilds.size);
    metrics.pausedGuilds.set(this.pausedCount);
  }

  private connect(attempt: number): void {
    this.start().catch((error: unknown) => {
      if (!this.running) return;
      const delay = Math.min(CONNECT_RETRY_MAX_MS, 1_000 * 2 ** attempt);
      this.logger.error({ err: String(error), retry_in_ms: delay }, 'gateway connection failed');
      this.reconnect.schedule(delay, () => this.connect(attempt + 1));
    });
  }
}
