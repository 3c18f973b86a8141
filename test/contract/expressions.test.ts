import { FakeChatPlatform, type SeededGuild, demoGuildSpec } from '@lib/sandbox';
import { REST } from '@discordjs/rest';
import { AuditLogEvent, Routes } from 'discord-api-types/v10';
import { contractFor, ERROR_RESPONSE, ROUTE_CONTRACTS, type RouteContract } from './support/discord-schemas';
import { type Exchange, RecordingProxy } from './support/recording-proxy';
import { itChecksEveryRoute, succeeded } from './support/route-checks';
import { checkAgainst } from './support/schema-check';

const REASON = 'contract suite';

/** A 1x1 PNG, and the same with an animation control chunk: an APNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

/**
 * The emoji, sticker and audit-log routes, checked here again with uploads of every kind the
 * platform takes or refuses (platform-routes.test.ts drives them as the product calls them).
 */
const CHECKED: RouteContract[] = ROUTE_CONTRACTS.filter((contract) =>
  /^\/guilds\/\{guild_id\}\/(emojis|stickers|audit-logs)(\/|$)/.test(contract.path),
);

const contractOf = (exchange: Exchange) => contractFor(exchange.method, exchange.path, CHECKED);

describe('the fake platform’s emoji and sticker routes against the published Discord schemas', () => {
  const platform = new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } });
  let proxy: RecordingProxy;
  let rest: REST;
  let seeded: SeededGuild;
  let stickerId: string;

  beforeAll(async () => {
    await platform.start();
    proxy = new RecordingProxy(platform.url);
    await proxy.start();
    rest = new REST({ api: `${proxy.url}/api`, retries: 0 }).setToken(platform.botToken);
    seeded = platform.seedGuild(demoGuildSpec('Expressions Guild'));
    await exerciseEveryRoute();
  }, 60_000);

  afterAll(async () => {
    await proxy.stop();
    await platform.stop();
  });

  /** Every route, as a backup and a restore (and a raid) will use them, and the refusals they meet. */
  async function exerciseEveryRoute() {
    const guildId = seeded.guildId;
    const role = Object.values(seeded.roles).find((id) => id !== guildId)!;
    const emoji = (await rest.post(Routes.guildEmojis(guildId), {
      body: { name: 'party', image: dataUri(PNG), roles: [role] },
      reason: REASON,
    })) as { id: string };
    await rest.get(Routes.guildEmojis(guildId));
    await rest.get(Routes.guildEmoji(guildId, emoji.id));
    await rest.patch(Routes.guildEmoji(guildId, emoji.id), { body: { name: 'renamed', roles: null } });
    const sticker = (await rest.post(Routes.guildStickers(guildId), {
      files: [{ key: 'file', data: PNG, name: 'wave.png', contentType: 'image/png' }],
      body: { name: 'wave', tags: 'wave', description: 'a wave' },
      appendToFormData: true,
      reason: REASON,
    })) as { id: string };
    stickerId = sticker.id;
    await rest.get(Routes.guildStickers(guildId));
    await rest.get(Routes.guildSticker(guildId, sticker.id));
    await rest.patch(Routes.guildSticker(guildId, sticker.id), {
      body: { name: 'wave2', description: null },
    });
    await rest.get(Routes.guildAuditLog(guildId));
    await rest.delete(Routes.guildEmoji(guildId, emoji.id));
    await rest.delete(Routes.guildSticker(guildId, sticker.id));
    // What the platform refuses: an image too large, a name too short, unknown ids, a full guild.
    const refusals = [
      rest.post(Routes.guildEmojis(guildId), {
        body: { name: 'big', image: dataUri(Buffer.concat([PNG, Buffer.alloc(256 * 1024)])) },
      }),
      rest.patch(Routes.guildEmoji(guildId, emoji.id), { body: { name: 'gone' } }),
      rest.get(Routes.guildSticker(guildId, sticker.id)),
      rest.post(Routes.guildStickers(guildId), {
        files: [{ key: 'file', data: PNG, name: 'w.png', contentType: 'image/png' }],
        body: { name: 'w', tags: 'wave' },
        appendToFormData: true,
      }),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toThrow();
    for (let index = 0; index < 5; index++) platform.addSticker(guildId, `seeded ${index}`);
    await expect(
      rest.post(Routes.guildStickers(guildId), {
        files: [{ key: 'file', data: PNG, name: 'w.png', contentType: 'image/png' }],
        body: { name: 'one too many', tags: 'wave' },
        appendToFormData: true,
      }),
    ).rejects.toThrow();
  }

  itChecksEveryRoute(CHECKED, () => proxy.exchanges);

  it('answers the creations 201, as the OpenAPI document declares', () => {
    const creations = proxy.exchanges.filter(
      (exchange) => exchange.method === 'POST' && succeeded(exchange) && contractOf(exchange),
    );
    expect(creations.map((exchange) => exchange.status)).toEqual([201, 201]);
  });

  it('answers every refusal in the error format, with the JSON error codes Discord documents', () => {
    const refusals = proxy.exchanges.filter((exchange) => exchange.status >= 400);
    const mismatches = refusals.flatMap((exchange) => {
      const { loose, strict } = checkAgainst(ERROR_RESPONSE, exchange.responseBody);
      return [...new Set([...loose, ...strict])].map((line) => `${exchange.method} ${exchange.path} ${line}`);
    });
    expect(mismatches).toEqual([]);
    // Invalid Form Body, Unknown Emoji, Unknown Sticker, Invalid Form Body, Maximum number of stickers.
    expect(refusals.map((exchange) => (exchange.responseBody as { code: number }).code)).toEqual([
      50035, 10014, 10060, 50035, 30039,
    ]);
  });

  it('writes the documented audit-log events for each change', () => {
    const { EmojiCreate, EmojiUpdate, EmojiDelete, StickerCreate, StickerUpdate, StickerDelete } =
      AuditLogEvent;
    const documented: AuditLogEvent[] = [
      EmojiCreate,
      EmojiUpdate,
      EmojiDelete,
      StickerCreate,
      StickerUpdate,
      StickerDelete,
    ];
    const entries = platform
      .auditLog(seeded.guildId)
      .filter((entry) => documented.includes(entry.action_type));
    expect(entries.map((entry) => entry.action_type)).toEqual([60, 61, 90, 91, 62, 92]);
    expect(entries.map((entry) => entry.reason)).toEqual([
      REASON,
      undefined,
      REASON,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('serves no image of a deleted sticker from the CDN', async () => {
    expect((await fetch(`${platform.cdnUrl}/stickers/${stickerId}.png`)).status).toBe(404);
  });
});
