import { StatementMigration } from '@lib/database';

/**
 * The images snapshots keep (custom emojis, stickers, the guild's icon, banner and splashes), stored
 * once by the SHA-256 of their bytes however many snapshots and guilds hold them:
 * `snapshot_images` holds each image, `snapshot_image_refs` which snapshot holds which. A ref goes
 * with its snapshot (ON DELETE CASCADE); an image no ref names any more is removed by the snapshot
 * retention job (`ImageStore.removeUnreferenced`) once `kept_at` (the last time a snapshot stored
 * it) is an hour old. A ref's `guild_id` lets a guild's quota be
 * counted without reading its snapshots.
 *
 * A restore that makes an emoji or sticker anew, or uploads a guild image (whose hash the platform
 * then renames), records the new id like a role's: `platform_id_replacements` takes those kinds.
 */
export class SnapshotImages1766700000000 extends StatementMigration {
  name = 'SnapshotImages1766700000000';

  protected readonly upStatements = [
    `
      CREATE TABLE recovery.snapshot_images (
        digest text PRIMARY KEY CHECK (digest ~ '^[0-9a-f]{64}$'),
        content_type text NOT NULL CHECK (char_length(content_type) <= 100),
        size integer NOT NULL CHECK (size > 0 AND size = octet_length(bytes)),
        bytes bytea NOT NULL,
        kept_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      CREATE TABLE recovery.snapshot_image_refs (
        snapshot_id uuid NOT NULL REFERENCES recovery.snapshots (id) ON DELETE CASCADE,
        digest text NOT NULL REFERENCES recovery.snapshot_images (digest),
        guild_id uuid NOT NULL REFERENCES recovery.guilds (id),
        PRIMARY KEY (snapshot_id, digest)
      )`,
    `CREATE INDEX snapshot_image_refs_digest ON recovery.snapshot_image_refs (digest)`,
    `CREATE INDEX snapshot_image_refs_guild ON recovery.snapshot_image_refs (guild_id, digest)`,
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check
          CHECK (kind IN ('role', 'channel', 'emoji', 'sticker', 'image'))`,
  ];

  protected readonly downStatements = [
    `DELETE FROM recovery.platform_id_replacements WHERE kind NOT IN ('role', 'channel')`,
    `ALTER TABLE recovery.platform_id_replacements DROP CONSTRAINT platform_id_replacements_kind_check`,
    `
      ALTER TABLE recovery.platform_id_replacements
        ADD CONSTRAINT platform_id_replacements_kind_check CHECK (kind IN ('role', 'channel'))`,
    `DROP TABLE recovery.snapshot_image_refs`,
    `DROP TABLE recovery.snapshot_images`,
  ];
}
