import type { PlatformImage } from '@lib/chat-platform';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/** An image as snapshots keep it: named by the SHA-256 of its bytes (lowercase hex). */
export interface StoredImage extends PlatformImage {
  digest: string;
}

export function storedImage(image: PlatformImage): StoredImage {
  return { ...image, digest: createHash('sha256').update(image.bytes).digest('hex') };
}

/**
 * Where snapshots' images live, each stored once by its digest however many snapshots and guilds
 * hold it, and removed once no snapshot refers to it. Postgres holds them by default
 * (PostgresImageStore); an installation with many guilds can put the bytes in an object store
 * behind this same class while the references stay in Postgres beside the snapshots
 * (docs/deploying.md, "Snapshot images").
 */
export abstract class ImageStore {
  /**
   * Keeps the images for the snapshot, in its insert's transaction: `fetched` with their bytes (an
   * image stored already is not written again), `kept` by digest, held already by an earlier
   * snapshot of the guild. Fails (and so does the insert) if one of `kept` is no longer stored.
   */
  abstract keep(
    manager: EntityManager,
    snapshot: { id: string; guildId: string },
    images: { fetched: readonly StoredImage[]; kept: readonly string[] },
  ): Promise<void>;

  /** The stored images of `digests` (those it has; a digest it lacks is absent from the map). */
  abstract read(digests: readonly string[]): Promise<Map<string, StoredImage>>;

  /**
   * Bytes the guild's snapshots hold now, each image once, and what keeping `digests` would add
   * (the size of those it does not hold yet, given in `sizes`).
   */
  abstract guildUsage(
    guildId: string,
    sizes: ReadonlyMap<string, number>,
  ): Promise<{ used: number; added: number }>;

  /**
   * Removes up to `limit` images no snapshot refers to and none has stored since `keptBefore` (an
   * hour ago: a snapshot being stored holds its images' rows); returns how many went.
   */
  abstract removeUnreferenced(keptBefore: Date, limit: number): Promise<number>;
}
