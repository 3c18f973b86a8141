import type { PlanCode, PlanDefinition, PlanFeature } from '@lib/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of the plan catalogue; seeded by migration, never written by the service. */
@Entity({ name: 'plans' })
export class Plan {
  @PrimaryColumn('uuid')
  id: string;

  @Column('text')
  code: PlanCode;

  @Column('smallint')
  rank: number;

  @Column('text')
  name: string;

  @Column('integer', { name: 'price_krw' })
  priceKrw: number;

  @Column('text', { array: true })
  features: PlanFeature[];

  @Column('integer', { name: 'snapshot_manual_max' })
  snapshotManualMax: number;

  @Column('integer', { name: 'scheduled_snapshot_retention_days', nullable: true })
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
