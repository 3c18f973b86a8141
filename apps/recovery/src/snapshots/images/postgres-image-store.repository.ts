import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ImageStore, type StoredImage } from './image-store';

/**
 * `recovery.snapshot_images` and `recovery.snapshot_image_refs`. Storing an image that exists
 * touches its row (`kept_at`, ON CONFLICT DO UPDATE) rather than skipping it: that locks the row
 * until the snapshot commits, and the removal of unreferenced images skips locked rows and those
 * kept within the hour, so an image a snapshot is storing is never removed under it (if the removal
 * runs first, the snapshot's insert stores it again).
 */
@Injectable()
export class PostgresImageStore extends ImageStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async keep(
    manager: EntityManager,
    snapshot: { id: string; guildId: string },
    images: { fetched: readonly StoredImage[]; kept: readonly string[] },
  ): Promise<void> {
    const fetched = [...new Map(images.fetched.map((image) => [image.digest, image])).values()];
    const digests = [...new Set([...fetched.map((image) => image.digest), ...images.kept])].sort();
    if (digests.length === 0) return;
    // Every row touched in digest order (locked until the snapshot commits), so two snapshots
    // storing the same images lock them in one order.
    const bytesOf = new Map(fetched.map((image) => [image.digest, image]));
    for (const digest of digests) {
      const image = bytesOf.get(digest);
      if (image) {
        await manager.query(
          `INSERT INTO recovery.snapshot_images (digest, content_type, size, bytes)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (digest) DO UPDATE SET kept_at = now()`,
          [digest, image.content_type, image.bytes.length, image.bytes],
        );
      } else {
        await manager.query(`UPDATE recovery.snapshot_images SET kept_at = now() WHERE digest = $1`, [
          digest,
        ]);
      }
    }
    await manager.query(
      `INSERT INTO recovery.snapshot_image_refs (snapshot_id, digest, guild_id)
       SELECT $1, digest, $2 FROM unnest($3::text[]) AS digest`,
      [snapshot.id, snapshot.guildId, digests],
    );
  }

  async read(digests: readonly string[]): Promise<Map<string, StoredImage>> {
    if (digests.length === 0) return new Map();
    const rows = await this.dataSource.query<{ digest: string; content_type: string; bytes: Buffer }[]>(
      `SELECT digest, content_type, bytes FROM recovery.snapshot_images WHERE digest = ANY($1::text[])`,
      [[...new Set(digests)]],
    );
    return new Map(rows.map((row) => [row.digest, { ...row }]));
  }

  async guildUsage(
    guildId: string,
    sizes: ReadonlyMap<string, number>,
  ): Promise<{ used: number; added: number }> {
    const [row] = await this.dataSource.query<{ used: string; held: string[] }[]>(
      `WITH held AS (SELECT DISTINCT digest FROM recovery.snapshot_image_refs WHERE guild_id = $1)
       SELECT coalesce(sum(i.size), 0) AS used,
              coalesce(array_agg(i.digest) FILTER (WHERE i.digest = ANY($2::text[])), '{}') AS held
         FROM held JOIN recovery.snapshot_images i USING (digest)`,
      [guildId, [...sizes.keys()]],
    );
    const held = new Set(row.held);
    let added = 0;
    for (const [digest, size] of sizes) if (!held.has(digest)) added += size;
    return { used: Number(row.used), added };
  }

  async removeUnreferenced(keptBefore: Date, limit: number): Promise<number> {
    const [, removed] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM recovery.snapshot_images WHERE digest IN (
         SELECT i.digest FROM recovery.snapshot_images i
          WHERE i.kept_at < $1
            AND NOT EXISTS (SELECT 1 FROM recovery.snapshot_image_refs r WHERE r.digest = i.digest)
          LIMIT $2
            FOR UPDATE SKIP LOCKED)`,
      [keptBefore, limit],
    );
    return removed;
  }
}
