import type { ExpressionImage } from './expression-images';

/**
 * A guild's custom emoji, in the platform's field names; `user_id` is who uploaded it, which the
 * emoji object shows as `user` only to those who may manage expressions (`emojiWire`).
 */
export interface FakeEmoji {
  id: string;
  /** The uploader; null when unknown (an emoji a test added without saying who uploaded it). */
  user_id: string | null;
  name: string;
  /** Roles allowed to use it; empty: everyone. */
  roles: string[];
  require_colons: boolean;
  managed: boolean;
  animated: boolean;
  available: boolean;
}

/** A guild's sticker (type 2, GUILD), in the platform's field names; `user_id` as for an emoji. */
export interface FakeSticker {
  id: string;
  user_id: string | null;
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
 * Each guild's emojis and stickers with their images, and its vanity URL code: parts the guild
 * object of the REST API leaves to their own routes. An image is kept by its emoji's or sticker's
 * id (ids are unique across guilds) until the emoji or sticker is deleted.
 */
export class GuildExpressions {
  private readonly emojisByGuild = new Map<string, FakeEmoji[]>();
  private readonly stickersByGuild = new Map<string, FakeSticker[]>();
  private readonly vanityByGuild = new Map<string, string | null>();
  private readonly images = new Map<string, ExpressionImage>();

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

  /** The guild's emojis and stickers together, as the guild object lists them. */
  of(guildId: string): { emojis: FakeEmoji[]; stickers: FakeSticker[] } {
    return { emojis: this.emojis(guildId), stickers: this.stickers(guildId) };
  }

  /** The uploaded image of an emoji or sticker that exists, by its id. */
  image(id: string): ExpressionImage | undefined {
    return this.images.get(id);
  }

  setImage(id: string, image: ExpressionImage): void {
    this.images.set(id, image);
  }

  dropImage(id: string): void {
    this.images.delete(id);
  }

  vanityCode(guildId: string): string | null {
    return this.vanityByGuild.get(guildId) ?? null;
  }

  setVanityCode(guildId: string, code: string | null): void {
    this.vanityByGuild.set(guildId, code);
  }

  dropGuild(guildId: string): void {
    for (const { id } of [...this.emojis(guildId), ...this.stickers(guildId)]) this.images.delete(id);
    this.emojisByGuild.delete(guildId);
    this.stickersByGuild.delete(guildId);
    this.vanityByGuild.delete(guildId);
  }

  clear(): void {
    this.emojisByGuild.clear();
    this.stickersByGuild.clear();
    this.vanityByGuild.clear();
    this.images.clear();
  }
}
