import { SnakeCaseColumn } from '@lib/database';
import type { PlanCode, PlanDefinition, PlanFeature, RestoreScope } from '@lib/contracts';
import { Entity, PrimaryColumn } from 'typeorm';

/** A row of the plan catalogue; seeded by migration, never written by the service. */
@Entity({ name: 'plans' })
export class Plan {
  @PrimaryColumn('uuid')
  id: string;

  @SnakeCaseColumn('text')
  code: PlanCode;

  @SnakeCaseColumn('smallint')
  rank: number;

  @SnakeCaseColumn('text')
  name: string;

  @SnakeCaseColumn('integer')
  priceKrw: number;

  @SnakeCaseColumn('text', { array: true })
  features: PlanFeature[];

  /** What a restore may put back on this plan; empty on FREE, which has no restores. */
  @SnakeCaseColumn('text', { array: true })
  restoreScopes: RestoreScope[];

  @SnakeCaseColumn('integer')
  snapshotManualMax: number;

  @SnakeCaseColumn('integer', { nullable: true })
  scheduledSnapshotRetentionDays: number | null;

  /** Days an audit log entry is kept (notifier's retention). */
  @SnakeCaseColumn('integer')
  auditLogRetentionDays: number;

  /** Bytes of images a guild's snapshots may keep, each image counted once. */
  @SnakeCaseColumn('integer')
  snapshotImageBytes: number;

  toDefinition(): PlanDefinition {
    return {
      code: this.code,
      rank: this.rank,
      name: this.name,
      price_krw: this.priceKrw,
      features: [...this.features],
      restore_scopes: [...this.restoreScopes],
      limits: {
        snapshot_manual_max: this.snapshotManualMax,
        scheduled_snapshot_retention_days: this.scheduledSnapshotRetentionDays,
        audit_log_retention_days: this.auditLogRetentionDays,
        snapshot_image_bytes: this.snapshotImageBytes,
      },
    };
  }
}
