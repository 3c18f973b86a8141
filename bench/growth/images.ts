import { ChatPlatformClient } from '@lib/chat-platform';
import type { Entitlements } from '@lib/contracts';
import type { EntitlementsClient } from '@lib/entitlements';
import { OutboxWriter } from '@lib/outbox';
import { FakeChatPlatform } from '@lib/sandbox';
import { v7 as uuidv7 } from 'uuid';
import { Guild } from '../../apps/recovery/src/guilds/guild.entity';
import { RecoveryEvents } from '../../apps/recovery/src/recovery-events';
import { PostgresImageStore } from '../../apps/recovery/src/snapshots/images/postgres-image-store.repository';
import { SnapshotService } from '../../apps/recovery/src/snapshots/snapshot.service';
import { SnapshotsRepository } from '../../apps/recovery/src/snapshots/snapshots.repository';
import { uniquePng } from '../../test/support/expression-raid';
import { openGrowthDataSource } from './database';

/** Issue 44's month: a snapshot a day of an unchanged guild. */
const DAYS = 30;
const EMOJIS = 50;
const STICKERS = 20;
/** What the month may store: images once (within 1.1x one snapshot's images) plus the payloads. */
export const IMAGE_GROWTH_LIMIT = 1.1;

/**
 * `bench:growth`'s images: thirty daily snapshots of a guild with 50 emojis, 20 stickers, an icon
 * and a banner, unchanged over the month, on `url`'s database. Prints the bytes stored for the
 * guild-month and the CDN reads, and passes when the month stores at most IMAGE_GROWTH_LIMIT times
 * one snapshot's images plus the thirty payloads.
 */
export async function measureImageGrowth(url: string): Promise<boolean> {
  const platform = new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } });
  await platform.start();
  const dataSource = await openGrowthDataSource(url);
  try {
    const image = (size: number) => ({ bytes: uniquePng(size), contentType: 'image/png' });
    const seeded = platform.seedGuild({
      name: 'Images month',
      premium_tier: 3,
      features: ['BANNER'],
      images: { icon: uniquePng(40_000), banner: uniquePng(200_000) },
      emojis: Array.from({ length: EMOJIS }, (_, i) => ({
        name: `emoji_${i}`,
        image: image(20_000 + i * 500),
      })),
      stickers: Array.from({ length: STICKERS }, (_, i) => ({
        name: `sticker_${i}`,
        image: image(60_000 + i * 1_000),
      })),
    });
    const guildId = uuidv7();
    await dataSource.query(
      `INSERT INTO recovery.guilds (id, platform_guild_id, name, owner_platform_user_id, bot_installed_at)
       VALUES ($1, $2, 'Images month', $3, now())`,
      [guildId, seeded.guildId, seeded.ownerId],
    );
    const guild = Object.assign(new Guild(), {
      id: guildId,
      platformGuildId: seeded.guildId,
      name: 'Images month',
    });
    const client = new ChatPlatformClient({
      apiBaseUrl: `${platform.url}/api`,
      cdnBaseUrl: platform.cdnUrl,
      botToken: platform.botToken,
    });
    // The plan's answer, as licensing gives an ENTERPRISE guild (1 GiB of images).
    const entitlements = {
      get: () => Promise.resolve({ limits: { snapshot_image_bytes: 1024 ** 3 } } as Entitlements),
    } as unknown as EntitlementsClient;
    const service = new SnapshotService(
      dataSource,
      client,
      entitlements,
      new SnapshotsRepository(dataSource),
      new RecoveryEvents(new OutboxWriter('recovery', 'recovery')),
      new PostgresImageStore(dataSource),
    );
    const cdnReads = () => platform.requestLog().filter((request) => request.path.startsWith('/cdn/')).length;
    const ids: string[] = [];
    const readsPerDay: number[] = [];
    const started = performance.now();
    for (let day = 0; day < DAYS; day++) {
      const before = cdnReads();
      ids.push((await service.create({ guild, trigger: 'scheduled', createdByUser: null })).id);
      readsPerDay.push(cdnReads() - before);
    }
    const ms = performance.now() - started;
    const [first] = await dataSource.query<{ bytes: string }[]>(
      `SELECT coalesce(sum(i.size), 0) AS bytes FROM recovery.snapshot_image_refs r
         JOIN recovery.snapshot_images i USING (digest) WHERE r.snapshot_id = $1`,
      [ids[0]],
    );
    const [stored] = await dataSource.query<{ bytes: string; images: string }[]>(
      `SELECT coalesce(sum(size), 0) AS bytes, count(*) AS images FROM recovery.snapshot_images
        WHERE digest IN (SELECT digest FROM recovery.snapshot_image_refs WHERE guild_id = $1)`,
      [guildId],
    );
    const [payloads] = await dataSource.query<{ bytes: string }[]>(
      `SELECT sum(payload_size) AS bytes FROM recovery.snapshots WHERE guild_id = $1`,
      [guildId],
    );
    const oneSnapshotImages = Number(first.bytes);
    const month = Number(stored.bytes) + Number(payloads.bytes);
    const floor = oneSnapshotImages + Number(payloads.bytes);
    const ratio = month / floor;
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
    console.log(
      `\nimages per guild-month: ${DAYS} daily snapshots, ${EMOJIS} emojis, ${STICKERS} stickers, icon, banner`,
    );
    console.log(`  one snapshot's images        ${kib(oneSnapshotImages)} (${Number(stored.images)} images)`);
    console.log(
      `  the month's payloads         ${kib(Number(payloads.bytes))} (${DAYS} x ~${kib(Number(payloads.bytes) / DAYS)})`,
    );
    console.log(
      `  stored for the guild-month   ${kib(month)}: ${ratio.toFixed(3)}x (images once + payloads)`,
    );
    console.log(
      `  CDN reads by day             first ${readsPerDay[0]}, then ${readsPerDay.slice(1).join(' ')}`,
    );
    console.log(`  ${DAYS} snapshots in ${(ms / 1000).toFixed(1)} s`);
    const passed = ratio <= IMAGE_GROWTH_LIMIT;
    console.log(
      `images: ${passed ? 'PASS' : 'FAIL'} (at most ${IMAGE_GROWTH_LIMIT}x one snapshot's images plus the payloads)`,
    );
    return passed;
  } finally {
    await dataSource.destroy();
    await platform.stop();
  }
}
