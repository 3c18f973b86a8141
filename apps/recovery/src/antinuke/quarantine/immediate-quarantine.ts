import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient, type GuildState } from '@lib/chat-platform';
import { EntitlementsClient } from '@lib/entitlements';
import { TtlCache } from '@lib/runtime';
import { GuildRegistry } from '../../guilds/guild-registry.service';
import { type ContainActor, containActor } from '../activities/quarantine-actor';
import { AntiNukeSettingsRepository } from '../antinuke-settings.repository';
import { DESTRUCTIVE_ACTION_KINDS, type DestructiveAction } from '../destructive-action';
import { type AntiNukeSettings, startingSettings } from '../workflows/antinuke-contract';
import { countedAction } from '../workflows/signal-checks';
import { incidentIdFrom } from '../workflows/incident-id';
import { RaidScore } from '../workflows/raid-score';
import { QuarantineRepository } from './quarantine.repository';

/**
 * How long a guild's AntiNuke setting and plan are taken as read. A setting changed through the
 * API reaches the immediate quarantine this much later at most (the workflow learns it at once,
 * and is the record either way).
 */
export const IMMEDIATE_SETTINGS_TTL_MS = 1_000;

/** What live sync knows of the guild when it reports an action. */
export interface ReportedFrom {
  platformGuildId: string;
  /** The bot's user id, from the gateway's READY; unknown until then. */
  botUserId?: string;
  /** The guild as live sync mirrors it now, or null when it is not mirrored (paused, not read). */
  mirror: () => GuildState | null;
}

interface GuildScore {
  score: RaidScore;
  threshold: number;
  windowSeconds: number;
}

/**
 * The quarantine at the moment an actor crosses the threshold, in the process that sees the action
 * (live sync), without waiting for the workflow: a raider sending 50 requests a second does ten
 * more in the time the signal, the workflow's task and its activity take.
 *
 * It scores each reported action exactly as the guild's workflow does (the same RaidScore, the
 * same countedAction, the same setting, exemptions and plan), and when the actor's score makes a
 * burst in a guild with auto-action on, quarantines them at once (containActor, the reads it can
 * skip taken from live sync's mirror). The workflow is signalled as before and stays the record of
 * the incident: its own quarantine activity adopts the record stored here under its incident's id
 * (QuarantineRepository.store), finds the roles already gone and takes nothing twice. When the two
 * disagree (this process started mid-raid, a setting not yet seen here), the workflow's activity
 * still quarantines on its own, a little later.
 *
 * Never throws back into live sync.
 */
@Injectable()
export class ImmediateQuarantine {
  private readonly logger = new Logger(ImmediateQuarantine.name);
  private readonly contain: ContainActor;
  private readonly settings = new TtlCache<AntiNukeSettings | null>(IMMEDIATE_SETTINGS_TTL_MS);
  private readonly scores = new Map<string, GuildScore>();

  constructor(
    private readonly stored: AntiNukeSettingsRepository,
    private readonly entitlements: EntitlementsClient,
    guilds: GuildRegistry,
    platform: ChatPlatformClient,
    quarantines: QuarantineRepository,
  ) {
    this.contain = containActor({ guilds, platform, quarantines });
  }

  /** Guilds with actions counted here now. */
  get guildsScored(): number {
    return this.scores.size;
  }

  async record(action: DestructiveAction, from: ReportedFrom): Promise<void> {
    try {
      const settings = await this.settingsOf(action.guild_id);
      if (!settings?.enabled || !settings.auto_action_enabled) {
        this.scores.delete(action.guild_id);
        return;
      }
      const now = Date.now();
      const counted = countedAction(action.guild_id, action, now, DESTRUCTIVE_ACTION_KINDS);
      if (!counted || settings.exempt_user_ids.includes(counted.actor_platform_user_id)) return;
      const guild = this.scoreOf(action.guild_id, settings);
      const outcome = guild.score.record(counted);
      if (guild.score.trackedActors === 0) this.scores.delete(action.guild_id);
      if (outcome.result !== 'burst') return;
      const incidentId = incidentIdFrom(now, randomUUID());
      const state = from.mirror();
      const contained = await this.contain(
        {
          guildId: action.guild_id,
          incidentId,
          actorPlatformUserId: counted.actor_platform_user_id,
          mode: settings.auto_action_mode,
        },
        {
          adopt: false,
          known: { platformGuildId: from.platformGuildId, botUserId: from.botUserId, state },
        },
      );
      this.logger.warn(
        {
          guild_id: action.guild_id,
          actor_platform_user_id: counted.actor_platform_user_id,
          audit_log_entry_id: counted.audit_log_entry_id,
          taken: contained.taken,
          error: contained.error,
          mirrored: state !== null,
        },
        'antinuke quarantine run by live sync as the threshold was crossed',
      );
    } catch (error) {
      this.logger.error(
        { guild_id: action.guild_id, audit_log_entry_id: action.audit_log_entry_id, err: String(error) },
        'immediate quarantine failed; the workflow quarantines on its own',
      );
    }
  }

  /** The setting the guild's workflow runs with, or null without ANTINUKE_DETECT. */
  private settingsOf(guildId: string): Promise<AntiNukeSettings | null> {
    return this.settings.get(guildId, async () => {
      const [{ features }, stored] = await Promise.all([
        this.entitlements.get(guildId),
        this.stored.get(guildId),
      ]);
      if (!features.includes('ANTINUKE_DETECT')) return null;
      return startingSettings(stored, features.includes('ANTINUKE_AUTO_ACTION'));
    });
  }

  private scoreOf(guildId: string, settings: AntiNukeSettings): GuildScore {
    let guild = this.scores.get(guildId);
    if (!guild) {
      guild = {
        score: new RaidScore(settings),
        threshold: settings.threshold,
        windowSeconds: settings.window_seconds,
      };
      this.scores.set(guildId, guild);
    } else if (guild.threshold !== settings.threshold || guild.windowSeconds !== settings.window_seconds) {
      guild.score.configure(settings);
      guild.threshold = settings.threshold;
      guild.windowSeconds = settings.window_seconds;
    }
    return guild;
  }
}
