import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { License } from './license.entity';

/** `licensing.licenses`: one row per guild, updated in place (docs/behaviour.md appendix rule 8). */
@Injectable()
export class LicensesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The guild's licence id, inserting a licence on `planId` when the guild has none. */
  async reserve(
    guildId: string,
    planId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string> {
    await manager.query(
      `INSERT INTO licensing.licenses (id, guild_id, plan_id, status) VALUES ($1, $2, $3, 'active')
       ON CONFLICT (guild_id) DO NOTHING`,
      [uuidv7(), guildId, planId],
    );
    const [row] = await manager.query<{ id: string }[]>(
      `SELECT id FROM licensing.licenses WHERE guild_id = $1`,
      [guildId],
    );
    return row.id;
  }

  /** The guild's licence, row-locked (FOR UPDATE) until the caller's transaction ends. */
  async lockByGuild(manager: EntityManager, guildId: string): Promise<License> {
    return manager.getRepository(License).findOneOrFail({
      where: { guildId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async save(manager: EntityManager, license: License): Promise<void> {
    await manager.getRepository(License).save(license);
  }

  async findByGuild(guildId: string): Promise<License | null> {
    return this.dataSource.getRepository(License).findOneBy({ guildId });
  }
}
