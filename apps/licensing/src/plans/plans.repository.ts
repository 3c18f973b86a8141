import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Plan } from './plan.entity';

/** `licensing.plans`, the catalogue: seeded by migration, only read. */
@Injectable()
export class PlansRepository {
  constructor(private readonly dataSource: DataSource) {}

  async allInRankOrder(): Promise<Plan[]> {
    return this.dataSource.getRepository(Plan).find({ order: { rank: 'ASC' } });
  }
}
