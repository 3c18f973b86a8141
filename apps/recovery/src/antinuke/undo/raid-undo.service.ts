import { isDeepStrictEqual } from 'node:util';
import { Injectable, Logger } from '@nestjs/common';
import {
  ChatPlatformClient,
  INCOMING_WEBHOOK,
  isChatPlatformError,
  WELCOME_SCREEN_ENABLED_FEATURE,
} from '@lib/chat-platform';
import { GuildRegistry } from '../../guilds/guild-registry.service';
import { toUserFacingError } from '../../platform/platform-errors';
import { readGuildMembership } from '../../snapshots/guild-membership';
import {
  readSnapshotPayload,
  type SnapshotPayload,
  serialiseSnapshot,
} from '../../snapshots/snapshot-payload';
import { SnapshotService } from '../../snapshots/snapshot.service';
import { readWelcomeFlow, type WelcomeFlow } from '../../snapshots/welcome-flow.reader';
import { ChangeJournalRepository } from '../../sync/change-journal.repository';
import { BotRemovalReadBack } from './bot-removal-read-back';
import { composePreRaidExpressions, preRaidRoleIcons } from './pre-raid-expressions';
import { BEFORE_IMAGE_SLACK_MS, composePreRaidState, type UnknownObject } from './pre-raid-state';
import { RaidUndoRepository } from './raid-undo.repository';
import { AntiNukeErrors } from '../antinuke.errors';

export interface RaidUndo {
  /** The snapshot of the guild as it was before the raid, to restore from. */
  snapshot_id: string;
  /** False when the one composed before still holds (nothing changed since). */
  created: boolean;
  /** Objects the actor deleted whose previous version nothing kept: the undo cannot bring them back. */
  unknown_objects: UnknownObject[];
}

/**
 * "Undo this raid": a snapshot (trigger `antinuke`, no slot needed) of the guild as it was before
 * the incident's actor first acted, composed on request from the guild now, the change journal
 * live sync keeps, the newest snapshot from before the raid and what the incident recorded. It is
 * kept on the incident; asked again with nothing changed, the same snapshot is answered.
 *
 * The bot kicked or banned first (`bot_removed`): once it is back, the audit log is read back
 * (BotRemovalReadBack) to name the raider and journal what they did while it was out, then the
 * undo is composed the same way.
 */
@Injectable()
export class RaidUndoService {
  private readonly logger = new Logger(RaidUndoService.name);
  private readonly readBack: BotRemovalReadBack;

  constructor(
    private readonly repository: RaidUndoRepository,
    private readonly journal: ChangeJournalRepository,
    private readonly guilds: GuildRegistry,
    private readonly platform: ChatPlatformClient,
    private readonly snapshots: SnapshotService,
  ) {
    this.readBack = new BotRemovalReadBack(platform, repository, journal);
  }

  async undo(guildId: string, incidentId: string): Promise<RaidUndo> {
    let incident = await this.repository.incident(guildId, incidentId);
    if (!incident) throw AntiNukeErrors.incidentNotFound();
    const raiderKnown = incident.actor_platform_user_id !== null;
    if (!raiderKnown && incident.action !== 'bot_removed') throw AntiNukeErrors.incidentWithoutRaider();
    const guild = await this.guilds.get(guildId);
    if (incident.action === 'bot_removed') {
      // Until the bot is back, nothing of the guild can be read: the raider stays unknown.
      if (guild.removedAt !== null && !raiderKnown) throw AntiNukeErrors.incidentWithoutRaider();
      if (guild.removedAt === null) {
        await this.readBack
          .readBack({
            incidentId,
            guildId,
            platformGuildId: guild.platformGuildId,
            actor: incident.actor_platform_user_id,
            removedAt: new Date(incident.first_action_at),
          })
          .catch((error: unknown) => {
            throw toUserFacingError(error);
          });
        incident = (await this.repository.incident(guildId, incidentId))!;
      }
    }
    const actor = incident.actor_platform_user_id;
    if (actor === null) throw AntiNukeErrors.incidentWithoutRaider();
    const raidStart = new Date(incident.first_action_at);
    const since = new Date(raidStart.getTime() - BEFORE_IMAGE_SLACK_MS);

    const [
      now,
      membership,
      emojis,
      stickers,
      automodRules,
      welcomeFlow,
      webhooks,
      actorEntries,
      journal,
      targets,
      snapshot,
    ] = await Promise.all([
      this.platform.getGuildState(guild.platformGuildId),
      readGuildMembership(this.platform, guild.platformGuildId, { members: true, bans: true }),
      this.platform.listEmojis(guild.platformGuildId),
      this.platform.listStickers(guild.platformGuildId),
      this.platform.listAutoModRules(guild.platformGuildId),
      // Enabled or not is the guild's feature, set from its read (withEnabled).
      readWelcomeFlow(this.platform, { id: guild.platformGuildId, features: [] }),
      // Without Manage Webhooks the undo leaves the webhooks out (and so as they are).
      this.platform.listWebhooks(guild.platformGuildId).then(
        (all) => all.filter((webhook) => webhook.type === INCOMING_WEBHOOK),
        (error: unknown) => {
          if (isChatPlatformError(error) && error.code === 'PermissionDenied') return undefined;
          throw error;
        },
      ),
      this.journal.entriesBy(guildId, actor, since),
      this.journal.changesSince(guildId, new Date(since.getTime() - BEFORE_IMAGE_SLACK_MS)),
      this.repository.targets(incidentId),
      this.snapshotBefore(guildId, raidStart),
    ]).catch((error: unknown) => {
      throw toUserFacingError(error);
    });
    const composed = composePreRaidState({ now, membership, snapshot, actorEntries, journal, targets });
    const expressions = composePreRaidExpressions({
      guild: now.guild,
      emojis,
      stickers,
      automodRules,
      welcomeFlow: 'unreadable' in welcomeFlow ? undefined : withEnabled(welcomeFlow, now.guild.features),
      webhooks,
      snapshot,
      actorEntries,
    });
    expressions.parts.role_icons = preRaidRoleIcons(composed.state.roles, snapshot);
    const state = { ...composed.state, guild: { ...composed.state.guild, ...expressions.imageHashes } };
    const unknown = [...composed.unknown, ...expressions.unknown];
    if (unknown.length > 0) {
      this.logger.warn({ guild_id: guildId, incident_id: incidentId, unknown }, 'raid undo incomplete');
    }

    if (incident.undo_snapshot_id) {
      const kept = await this.repository.payload(incident.undo_snapshot_id);
      const fresh = serialiseSnapshot(state, new Date(), composed.membership, {
        parts: expressions.parts,
        omitted: [],
      }).json;
      if (kept && isDeepStrictEqual(withoutTime(JSON.parse(fresh)), withoutTime(kept))) {
        return { snapshot_id: incident.undo_snapshot_id, created: false, unknown_objects: unknown };
      }
    }
    const created = await this.snapshots.create({
      guild,
      trigger: 'antinuke',
      createdByUser: null,
      description: `The guild before the raid of AntiNuke incident ${incidentId}`,
      composed: { state, membership: composed.membership, expressions: expressions.parts },
    });
    await this.repository.recordUndo(incidentId, created.id);
    return { snapshot_id: created.id, created: true, unknown_objects: unknown };
  }

  /** The newest snapshot from before the raid; one this build cannot read is not used. */
  private async snapshotBefore(guildId: string, raidStart: Date): Promise<SnapshotPayload | null> {
    const payload = await this.repository.payloadBefore(guildId, raidStart);
    if (payload === null) return null;
    try {
      return readSnapshotPayload(payload);
    } catch {
      return null;
    }
  }
}

function withEnabled(flow: WelcomeFlow, features: readonly string[]): WelcomeFlow {
  const screen = flow.welcome_screen;
  if (!screen) return flow;
  return {
    ...flow,
    welcome_screen: { ...screen, enabled: features.includes(WELCOME_SCREEN_ENABLED_FEATURE) },
  };
}

function withoutTime(payload: unknown): unknown {
  const { snapshot_at: _at, ...rest } = payload as Record<string, unknown>;
  return rest;
}
