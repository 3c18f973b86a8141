import { GUILD_IMAGE_SLOTS, type GuildState } from '@lib/chat-platform';
import type { IdKind, IdReplacement, IdResolution, LiveExpressions, LiveWebhook } from './diff-model';

/** Resolves snapshot ids against one live guild and the guild's recorded replacements. */
export class SnapshotIdResolution implements IdResolution {
  private readonly liveIds: Record<IdKind, Set<string>>;
  private readonly replacements: Record<IdKind, Map<string, string>> = {
    role: new Map(),
    channel: new Map(),
    emoji: new Map(),
    sticker: new Map(),
    image: new Map(),
    automod_rule: new Map(),
    webhook: new Map(),
    forum_tag: new Map(),
  };

  /** `expressions`: the live emojis and stickers, when they were read (their scopes); `webhooks` too. */
  constructor(
    live: GuildState,
    replacements: Iterable<IdReplacement>,
    expressions?: LiveExpressions,
    webhooks?: readonly LiveWebhook[],
  ) {
    // The guild's images and its roles' icons: a restore's upload of either is named by a new hash.
    const imageHashes = [
      ...GUILD_IMAGE_SLOTS.map((slot) => live.guild[slot]),
      ...live.roles.map((role) => role.icon),
    ].filter((hash) => typeof hash === 'string');
    this.liveIds = {
      role: new Set(live.roles.map((role) => role.id)),
      channel: new Set(live.channels.map((channel) => channel.id)),
      emoji: new Set(expressions?.emojis.map((emoji) => emoji.id)),
      sticker: new Set(expressions?.stickers.map((sticker) => sticker.id)),
      image: new Set(imageHashes),
      automod_rule: new Set(expressions?.automodRules?.map((rule) => rule.id)),
      webhook: new Set(webhooks?.map((webhook) => webhook.id)),
      forum_tag: new Set(
        live.channels.flatMap((channel) => channel.available_tags ?? []).map((tag) => tag.id),
      ),
    };
    for (const { kind, original_id, replacement_id } of replacements) {
      this.replacements[kind].set(original_id, replacement_id);
    }
  }

  /** A replacement made after the guild was read: the new item exists, and the chain leads to it. */
  learn(kind: IdKind, originalId: string, replacementId: string): void {
    this.replacements[kind].set(originalId, replacementId);
    this.liveIds[kind].add(replacementId);
  }

  /**
   * The replacements recorded since the guild was read (those not known yet, or changed): each made
   * after the read, so it exists. Those known already keep being checked against the read.
   */
  learnRecorded(recorded: Iterable<IdReplacement>): void {
    for (const { kind, original_id, replacement_id } of recorded) {
      if (this.replacements[kind].get(original_id) !== replacement_id)
        this.learn(kind, original_id, replacement_id);
    }
  }

  resolve(kind: IdKind, snapshotId: string): string | undefined {
    const live = this.liveIds[kind];
    const chain = this.replacements[kind];
    // A replacement can itself be deleted and replaced again, so the chain is walked to the end;
    // `seen` stops a corrupt, circular record from looping forever.
    const seen = new Set<string>();
    for (let id: string | undefined = snapshotId; id !== undefined && !seen.has(id); id = chain.get(id)) {
      if (live.has(id)) return id;
      seen.add(id);
    }
    return undefined;
  }
}
