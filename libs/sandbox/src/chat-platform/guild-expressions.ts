/**
 * A guild's custom emoji, in the platform's shape (the fields its emoji object has for a guild's
 * own emoji; `user`, the uploader, is left out as the platform does without Manage Expressions).
 */
export interface FakeEmoji {
  id: string;
  name: string;
  /** Roles allowed to use it; empty: everyone. */
  roles: string[];
  require_colons: boolean;
  managed: boolean;
  animated: boolean;
  available: boolean;
}

/** A guild's sticker (type 2, GUILD), in the platform's shape. */
export interface FakeSticker {
  id: string;
  name: string;
  description: string | null;
  /** Autocomplete text: the platform keeps it as one comma-separated string. */
  tags: string;
  type: 2;
  /** 1 PNG, 2 APNG, 3 LOTTIE, 4 GIF. */
  format_type: 1 | 2 | 3 | 4;
  available: boolean;
  guild_id: string;
}

/** An incoming webhook (type 1), as the platform answers its creation. */
export interface FakeWebhook {
  id: string;
  type: 1;
  guild_id: string;
  channel_id: string;
  /** Who created it. */
  creator_id: string;
  name: string;
  avatar: string | null;
  token: string;
}

/**
 * Each guild's emojis, stickers and vanity URL code: parts the guild object of the REST API leaves
 * to their own routes. Minimal: listing and deleting, enough for a raid to destroy them.
 */
export class GuildExpressions {
  private readonly emojisByGuild = new Map<string, FakeEmoji[]>();
  private readonly stickersByGuild = new Map<string, FakeSticker[]>();
  private readonly vanityByGuild = new Map<string, string | null>();

  emojis(guildId: string): FakeEmoji[] {
    let emojis = this.emojisByGuild.get(guildId);
    if (!emojis) this.emojisByGuild.set(guildId, (emojis = []));
    return emojis;
  }

  stickers(guildId: string): FakeSticker[] {
    let stickers = this.stickersByGuild.get(guildId);
    if (!stickers) this.stickersByGuild.set(guildId, (stickers = []));
    return stickers;
  }

  vanityCode(guildId: string): string | null {
    return this.vanityByGuild.get(guildId) ?? null;
  }

  setVanityCode(guildId: string, code: string | null): void {
    this.vanityByGuild.set(guildId, code);
  }

  dropGuild(guildId: string): void {
    this.emojisByGuild.delete(guildId);
    this.stickersByGuild.delete(guildId);
    this.vanityByGuild.delete(guildId);
  }

  clear(): void {
    this.emojisByGuild.clear();
    this.stickersByGuild.clear();
    this.vanityByGuild.clear();
  }
}
