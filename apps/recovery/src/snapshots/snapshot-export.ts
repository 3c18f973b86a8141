import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ImageStore, type StoredImage } from './images/image-store';
import { readSnapshotPayload, type SnapshotPayload, snapshotImageDigests } from './snapshot-payload';
import { SnapshotsRepository } from './snapshots.repository';
import { SnapshotErrors } from './snapshots.errors';

export const SNAPSHOT_EXPORT_FORMAT = 'guildkeeper.snapshot-export';

/**
 * A snapshot as one file its guild's managers can download and keep elsewhere: the payload as
 * stored and every image it names, base64-encoded under its SHA-256 digest. JSON, so the owner
 * can read it; `readSnapshotExport` reads it back and checks each image against its digest.
 */
export interface SnapshotExportFile {
  format: typeof SNAPSHOT_EXPORT_FORMAT;
  format_version: 1;
  exported_at: string;
  snapshot: { id: string; guild_id: string; trigger: string; description: string | null; created_at: string };
  payload: SnapshotPayload;
  images: Record<string, { content_type: string; data: string }>;
}

@Injectable()
export class SnapshotExporter {
  constructor(
    private readonly snapshots: SnapshotsRepository,
    private readonly images: ImageStore,
  ) {}

  /** The guild's snapshot as an export file; ErrSnapshotNotFound for another guild's or a deleted one. */
  async exportFile(guildId: string, snapshotId: string, now = new Date()): Promise<SnapshotExportFile> {
    const row = await this.snapshots.detail(guildId, snapshotId, true);
    if (!row) throw SnapshotErrors.notFound();
    const payload = readSnapshotPayload(row.payload);
    const stored = await this.images.read(snapshotImageDigests(payload));
    const images: SnapshotExportFile['images'] = {};
    for (const [digest, image] of [...stored].sort(([a], [b]) => (a < b ? -1 : 1))) {
      images[digest] = { content_type: image.content_type, data: image.bytes.toString('base64') };
    }
    return {
      format: SNAPSHOT_EXPORT_FORMAT,
      format_version: 1,
      exported_at: now.toISOString(),
      snapshot: {
        id: row.id,
        guild_id: row.guild_id,
        trigger: row.trigger,
        description: row.description,
        created_at: new Date(row.created_at).toISOString(),
      },
      payload,
      images,
    };
  }
}

/**
 * An export file read back: its payload (version checked as a stored one is) and its images, each
 * checked against the digest it is filed under. Throws on anything else.
 */
export function readSnapshotExport(file: unknown): {
  payload: SnapshotPayload;
  images: Map<string, StoredImage>;
} {
  const candidate = file as Partial<SnapshotExportFile> | null;
  if (candidate?.format !== SNAPSHOT_EXPORT_FORMAT || candidate.format_version !== 1) {
    throw new Error('not a guildkeeper snapshot export (format_version 1)');
  }
  const payload = readSnapshotPayload(candidate.payload);
  const images = new Map<string, StoredImage>();
  for (const [digest, image] of Object.entries(candidate.images ?? {})) {
    const bytes = Buffer.from(image.data, 'base64');
    if (createHash('sha256').update(bytes).digest('hex') !== digest) {
      throw new Error(`the export's image ${digest} is not the image of that digest`);
    }
    images.set(digest, { digest, bytes, content_type: image.content_type });
  }
  return { payload, images };
}
