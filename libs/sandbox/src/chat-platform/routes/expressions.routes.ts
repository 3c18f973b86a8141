import {
  AuditLogEvent,
  GatewayDispatchEvents,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { changesOf } from '../audit-log';
import { BotAuthority } from '../bot-authority';
import { type ImageKind, CONTENT_TYPES, imageKind, isAnimated, parseImageData } from '../expression-images';
import { FormBody } from '../form-body';
import type { FakeEmoji, FakeSticker } from '../guild-expressions';
import type { GuildChange } from '../guild-change';
import { platformError } from '../platform-error';
import type { FakeGuild } from '../platform-state';
import type { PlatformStore } from '../platform-store';
import { emojiWire, stickerWire } from '../wire-format';
import {
  type MultipartBody,
  type PlatformRoute,
  type RouteRequest,
  created,
  noContent,
  ok,
} from './platform-route';

/**
 * Discord's guild emoji routes (resources/emoji: List, Get, Create, Modify, Delete Guild Emoji) and
 * guild sticker routes (resources/sticker: List, Get, Create, Modify, Delete Guild Sticker), with
 * the images they upload served back by the fake's CDN (`../cdn.ts`).
 *
 * Permissions (topics/permissions): creating needs CREATE_GUILD_EXPRESSIONS, as both Create
 * routes say; editing or deleting one's own upload needs CREATE_GUILD_EXPRESSIONS or
 * MANAGE_GUILD_EXPRESSIONS, anyone else's MANAGE_GUILD_EXPRESSIONS. Listing and reading need only
 * membership; the answers include `user`, the uploader, for those holding either permission.
 *
 * Limits: an emoji image at most 256 KiB, a sticker file at most 512 KiB (PNG, APNG, GIF, or Lottie
 * JSON on a VERIFIED or PARTNERED guild); slots by the guild's premium tier (the platform's Server
 * Boost levels: 50/100/150/250 emojis, static and animated counted apart, and 5/15/30/60 stickers),
 * the documented 30008 and 30039 when full. Premium (subscription-role) emojis and their separate
 * limit of 25 are not modelled: the fake's guilds have no guild_subscription integration.
 *
 * Each change is an audit-log entry (EMOJI_CREATE/UPDATE/DELETE, STICKER_CREATE/UPDATE/DELETE)
 * whose `changes` hold the fields it set or removed, and GUILD_EMOJIS_UPDATE or
 * GUILD_STICKERS_UPDATE with the guild's whole new list (events/gateway-events). The per-guild rate
 * limits the emoji docs warn of are not modelled beyond the fake's usual buckets.
 */

const { CreateGuildExpressions: CREATE, ManageGuildExpressions: MANAGE } = PermissionFlagsBits;
const { GuildExpressions: EXPRESSIONS_INTENT } = GatewayIntentBits;

/** Emoji slots per kind (static, animated) by `premium_tier`. */
export const EMOJI_SLOTS_BY_TIER = [50, 100, 150, 250] as const;
/** Sticker slots by `premium_tier`. */
export const STICKER_SLOTS_BY_TIER = [5, 15, 30, 60] as const;
export const MAX_EMOJI_IMAGE_BYTES = 256 * 1024;
export const MAX_STICKER_FILE_BYTES = 512 * 1024;

/** Lottie stickers only on guilds with one of these features (resources/sticker, "Create Guild Sticker"). */
const LOTTIE_FEATURES = ['VERIFIED', 'PARTNERED'];

/** 1 PNG, 2 APNG, 3 LOTTIE, 4 GIF (resources/sticker, "Sticker Format Types"). */
type StickerFormat = FakeSticker['format_type'];

function slotsFor(slots: readonly number[], guild: FakeGuild): number {
  return slots[Math.min(Math.max(guild.premium_tier, 0), slots.length - 1)];
}

/** Whether the actor is shown uploaders: it holds CREATE_ or MANAGE_GUILD_EXPRESSIONS. */
function seesUploaders(guild: FakeGuild, actorId: string): boolean {
  const authority = new BotAuthority(guild, actorId);
  return authority.holds(CREATE) || authority.holds(MANAGE);
}

/** Editing or deleting: anyone's with MANAGE_GUILD_EXPRESSIONS, one's own with either permission. */
function requireEditable(guild: FakeGuild, actorId: string, uploaderId: string | null): void {
  const authority = new BotAuthority(guild, actorId);
  if (authority.holds(MANAGE)) return;
  if (uploaderId === actorId && authority.holds(CREATE)) return;
  throw platformError.missingPermissions();
}

function emojiAnswer(store: PlatformStore, emoji: FakeEmoji, withUploader: boolean) {
  const uploader = withUploader && emoji.user_id ? store.users.get(emoji.user_id) : undefined;
  return emojiWire(emoji, uploader);
}

function stickerAnswer(store: PlatformStore, sticker: FakeSticker, withUploader: boolean) {
  const uploader = withUploader && sticker.user_id ? store.users.get(sticker.user_id) : undefined;
  return stickerWire(sticker, uploader);
}

function findEmoji(store: PlatformStore, guild: FakeGuild, id: string): FakeEmoji {
  const emoji = store.expressions.emojis(guild.id).find((candidate) => candidate.id === id);
  if (!emoji) throw platformError.unknownEmoji();
  return emoji;
}

function findSticker(store: PlatformStore, guild: FakeGuild, id: string): FakeSticker {
  const sticker = store.expressions.stickers(guild.id).find((candidate) => candidate.id === id);
  if (!sticker) throw platformError.unknownSticker();
  return sticker;
}

/**
 * An emoji's name. The API docs give no rule; the platform's own client allows 2 to 32 letters,
 * digits and underscores, which the fake enforces (the stricter reading); the error codes are the
 * platform's form-validation ones.
 */
function readEmojiName(form: FormBody, required: boolean): string | undefined {
  const name = form.string('name', { required, min: 2, max: 32 });
  // An edit may leave the name out, not null it (`name?: string`).
  if (name === null) return form.fail('name', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (name === undefined) return undefined;
  if (!/^\w+$/.test(name)) {
    return form.fail('name', 'STRING_TYPE_REGEX', 'String value did not match validation regex.');
  }
  return name;
}

/**
 * The roles allowed to use an emoji; null or absent is everyone. A role the guild does not have is
 * Unknown Role (the docs say nothing of it; refusing is the stricter reading).
 */
function checkRoles(store: PlatformStore, guild: FakeGuild, roles: string[]): string[] {
  for (const id of roles) store.role(guild, id);
  return [...new Set(roles)];
}

/**
 * The emoji image, image data (reference, "Image Data"). Over 256 KiB the docs promise "400 Bad
 * Request and an error message, but not a JSON status code"; the platform's answer is an Invalid
 * Form Body naming the field, which the fake sends, as for image data it cannot read.
 */
function readEmojiImage(form: FormBody) {
  const text = form.string('image', { required: true });
  if (typeof text !== 'string') return undefined;
  const upload = parseImageData(text);
  if (!upload) return form.fail('image', 'IMAGE_INVALID', 'Invalid image data');
  if (upload.image.bytes.length > MAX_EMOJI_IMAGE_BYTES) {
    return form.fail('image', 'BINARY_TYPE_MAX_SIZE', 'File cannot be larger than 256.0 kb.');
  }
  return upload;
}

/**
 * A sticker's description: "empty or 2-100 characters". The docs do not say what an empty one
 * becomes; the fake keeps what was sent.
 */
function readStickerDescription(form: FormBody): string | null | undefined {
  const description = form.string('description', { max: 100 });
  if (description?.length === 1) {
    return form.fail('description', 'BASE_TYPE_BAD_LENGTH', 'Must be between 2 and 100 in length.');
  }
  return description;
}

/**
 * A sticker's tags: the docs say at most 200 characters; the least is undocumented, and the fake
 * takes the stricter 2 that Discord's API typings give.
 */
function readStickerTags(form: FormBody, required: boolean): string | undefined {
  const tags = form.string('tags', { required, min: 2, max: 200 });
  // An edit may leave the tags out, not null them (`tags?: string`).
  if (tags === null) return form.fail('tags', 'BASE_TYPE_REQUIRED', 'This field is required');
  return tags;
}

function emojiListChange(store: PlatformStore, guild: FakeGuild, entry: EntryFields): GuildChange {
  return {
    kind: 'entry',
    guildId: guild.id,
    entry,
    dispatch: {
      event: GatewayDispatchEvents.GuildEmojisUpdate,
      data: {
        guild_id: guild.id,
        emojis: store.expressions.emojis(guild.id).map((emoji) => emojiWire(emoji)),
      },
      intent: EXPRESSIONS_INTENT,
    },
  };
}

function stickerListChange(store: PlatformStore, guild: FakeGuild, entry: EntryFields): GuildChange {
  return {
    kind: 'entry',
    guildId: guild.id,
    entry,
    dispatch: {
      event: GatewayDispatchEvents.GuildStickersUpdate,
      data: {
        guild_id: guild.id,
        stickers: store.expressions.stickers(guild.id).map((sticker) => stickerWire(sticker)),
      },
      intent: EXPRESSIONS_INTENT,
    },
  };
}

type EntryFields = Extract<GuildChange, { kind: 'entry' }>['entry'];

const EMOJI_AUDITED = ['name', 'roles'] as const;
const STICKER_AUDITED = [
  'name',
  'tags',
  'description',
  'type',
  'format_type',
  'available',
  'guild_id',
] as const;

/**
 * The format of a sticker file, from its bytes: PNG, APNG (a PNG with an animation control chunk),
 * GIF, or Lottie (JSON). Undefined for anything else.
 */
function stickerFormat(bytes: Buffer): StickerFormat | undefined {
  const kind: ImageKind | undefined = imageKind(bytes);
  if (kind === 'png') return isAnimated(bytes, 'png') ? 2 : 1;
  if (kind === 'gif') return 4;
  if (kind === undefined && /^\s*[{[]/.test(bytes.subarray(0, 64).toString('utf8'))) return 3;
  return undefined;
}

/**
 * Whether a Lottie file is one: a JSON object with the animation's layers. The platform checks far
 * more (frame rate, duration, no raster images: codes 170001 to 170007); the fake checks the shape.
 */
function isLottie(bytes: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return (
      typeof value === 'object' && value !== null && Array.isArray((value as { layers?: unknown }).layers)
    );
  } catch {
    return false;
  }
}

function readStickerFile(form: FormBody, guild: FakeGuild, files: MultipartBody['files']) {
  const file = files.get('file');
  if (!file) return form.fail('file', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (file.bytes.length > MAX_STICKER_FILE_BYTES) {
    return form.fail('file', 'BINARY_TYPE_MAX_SIZE', 'File cannot be larger than 512.0 kb.');
  }
  const format = stickerFormat(file.bytes);
  if (format === undefined) {
    return form.fail(
      'file',
      'STICKER_INVALID_FORMAT',
      'Sticker must be a PNG, APNG, GIF or Lottie JSON file.',
    );
  }
  // The docs do not say how the platform refuses a Lottie on another guild; the fake's answer is an
  // Invalid Form Body on the file, with a code of its own.
  if (format === 3 && !LOTTIE_FEATURES.some((feature) => guild.features.includes(feature))) {
    return form.fail(
      'file',
      'STICKER_LOTTIE_NOT_ALLOWED',
      'Lottie stickers need a verified or partnered guild.',
    );
  }
  return { bytes: file.bytes, format };
}

export const expressionRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/emojis',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const shown = seesUploaders(guild, actorId);
      return ok(store.expressions.emojis(guild.id).map((emoji) => emojiAnswer(store, emoji, shown)));
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/emojis/:emoji_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const emoji = findEmoji(store, guild, params.emoji_id);
      return ok(emojiAnswer(store, emoji, seesUploaders(guild, actorId)));
    },
  },
  {
    method: 'POST',
    path: '/guilds/:guild_id/emojis',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(CREATE);
      const form = FormBody.object(body);
      const name = readEmojiName(form, true);
      const upload = readEmojiImage(form);
      const roles = form.snowflakes('roles');
      form.check();
      const emojis = store.expressions.emojis(guild.id);
      const animated = isAnimated(upload!.image.bytes, upload!.kind);
      const sameKind = emojis.filter((emoji) => emoji.animated === animated && !emoji.managed);
      if (sameKind.length >= slotsFor(EMOJI_SLOTS_BY_TIER, guild)) throw platformError.maxEmojis();
      const emoji: FakeEmoji = {
        id: store.ids.next(),
        user_id: actorId,
        name: name!,
        roles: checkRoles(store, guild, roles ?? []),
        require_colons: true,
        managed: false,
        animated,
        available: true,
      };
      emojis.push(emoji);
      store.expressions.setImage(emoji.id, upload!.image);
      const change = emojiListChange(store, guild, {
        target_id: emoji.id,
        action_type: AuditLogEvent.EmojiCreate,
        changes: changesOf(null, emoji, EMOJI_AUDITED),
      });
      return created(emojiAnswer(store, emoji, true), [change]);
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/emojis/:emoji_id',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const emoji = findEmoji(store, guild, params.emoji_id);
      requireEditable(guild, actorId, emoji.user_id);
      const form = FormBody.object(body ?? {});
      const name = readEmojiName(form, false);
      const roles = form.snowflakes('roles');
      form.check();
      const before = structuredClone(emoji);
      if (name !== undefined) emoji.name = name;
      if (roles !== undefined) emoji.roles = checkRoles(store, guild, roles ?? []);
      const changes = changesOf(before, emoji, EMOJI_AUDITED);
      const answer = emojiAnswer(store, emoji, true);
      if (changes.length === 0) return ok(answer);
      const entry = { target_id: emoji.id, action_type: AuditLogEvent.EmojiUpdate, changes };
      return ok(answer, [emojiListChange(store, guild, entry)]);
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/emojis/:emoji_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const emoji = findEmoji(store, guild, params.emoji_id);
      requireEditable(guild, actorId, emoji.user_id);
      const emojis = store.expressions.emojis(guild.id);
      emojis.splice(emojis.indexOf(emoji), 1);
      store.expressions.dropImage(emoji.id);
      const change = emojiListChange(store, guild, {
        target_id: emoji.id,
        action_type: AuditLogEvent.EmojiDelete,
        changes: changesOf(emoji, null, ['name']),
      });
      return noContent([change]);
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/stickers',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const shown = seesUploaders(guild, actorId);
      return ok(store.expressions.stickers(guild.id).map((sticker) => stickerAnswer(store, sticker, shown)));
    },
  },
  {
    method: 'GET',
    path: '/guilds/:guild_id/stickers/:sticker_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const sticker = findSticker(store, guild, params.sticker_id);
      return ok(stickerAnswer(store, sticker, seesUploaders(guild, actorId)));
    },
  },
  {
    method: 'POST',
    path: '/guilds/:guild_id/stickers',
    // Form params with the file (resources/sticker, "Create Guild Sticker"); a `payload_json` part
    // is not read, as the docs offer none for this route.
    bodyFormat: 'multipart',
    handle: (request: RouteRequest, store) => {
      const { params, actorId } = request;
      const { fields, files } = request.body as MultipartBody;
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(CREATE);
      const form = FormBody.object(Object.fromEntries(fields));
      const name = form.string('name', { required: true, min: 2, max: 30 });
      const description = readStickerDescription(form);
      const tags = readStickerTags(form, true);
      const file = readStickerFile(form, guild, files);
      form.check();
      if (file!.format === 3 && !isLottie(file!.bytes)) throw platformError.invalidLottie();
      const stickers = store.expressions.stickers(guild.id);
      if (stickers.length >= slotsFor(STICKER_SLOTS_BY_TIER, guild)) throw platformError.maxStickers();
      const sticker: FakeSticker = {
        id: store.ids.next(),
        user_id: actorId,
        name: name!,
        description: description ?? null,
        tags: tags!,
        type: 2,
        format_type: file!.format,
        available: true,
        guild_id: guild.id,
      };
      stickers.push(sticker);
      const contentType = file!.format === 3 ? CONTENT_TYPES.lottie : CONTENT_TYPES[imageKind(file!.bytes)!];
      store.expressions.setImage(sticker.id, { bytes: file!.bytes, contentType });
      const change = stickerListChange(store, guild, {
        target_id: sticker.id,
        action_type: AuditLogEvent.StickerCreate,
        changes: changesOf(null, sticker, STICKER_AUDITED),
      });
      return created(stickerAnswer(store, sticker, true), [change]);
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:guild_id/stickers/:sticker_id',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const sticker = findSticker(store, guild, params.sticker_id);
      requireEditable(guild, actorId, sticker.user_id);
      const form = FormBody.object(body ?? {});
      const name = form.string('name', { min: 2, max: 30 });
      const description = readStickerDescription(form);
      const tags = readStickerTags(form, false);
      if (name === null) form.fail('name', 'BASE_TYPE_REQUIRED', 'This field is required');
      form.check();
      const before = structuredClone(sticker);
      if (typeof name === 'string') sticker.name = name;
      if (description !== undefined) sticker.description = description;
      if (tags !== undefined) sticker.tags = tags;
      const changes = changesOf(before, sticker, STICKER_AUDITED);
      const answer = stickerAnswer(store, sticker, true);
      if (changes.length === 0) return ok(answer);
      const entry = { target_id: sticker.id, action_type: AuditLogEvent.StickerUpdate, changes };
      return ok(answer, [stickerListChange(store, guild, entry)]);
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:guild_id/stickers/:sticker_id',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      const sticker = findSticker(store, guild, params.sticker_id);
      requireEditable(guild, actorId, sticker.user_id);
      const stickers = store.expressions.stickers(guild.id);
      stickers.splice(stickers.indexOf(sticker), 1);
      store.expressions.dropImage(sticker.id);
      const change = stickerListChange(store, guild, {
        target_id: sticker.id,
        action_type: AuditLogEvent.StickerDelete,
        changes: changesOf(sticker, null, STICKER_AUDITED),
      });
      return noContent([change]);
    },
  },
];
