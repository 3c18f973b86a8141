import { SnakeCaseColumn } from '@lib/database';
import type { PlanCode, PlanDefinition, PlanFeature } from '@lib/contracts';
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

  @SnakeCaseColumn('integer')
  snapshotManualMax: number;

  @SnakeCaseColumn('integer', { nullable: true })
  scheduledSnapshotRetentionDays: number | null;

  toDefinition(): PlanDefinition {
    return {
      code: this.code,
      rank: this.rank,
      name: this.name,
      price_krw: this.priceKrw,
      features: [...this.features],
      limits: {
        snapshot_manual_max: this.snapshotManualMax,
        scheduled_snapshot_retention_days: this.scheduledSnapshotRetentionDays,
      },
    };
  }
}
