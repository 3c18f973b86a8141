import { Logger } from '@nestjs/common';
import type { Entitlements, PlanDefinition } from '@lib/contracts';
import { daysBefore, type DeleteBatch, type RetentionRule } from '@lib/runtime';
import type { AuditLogRetentionRepository, GuildOldestEntry } from './audit-log-retention.repository';

/** Guilds read per statement of the loose index scan. */
export const AUDIT_GUILD_PAGE = 500;
/** Entitlements asked of licensing at once, within a page. */
export const AUDIT_LOOKUPS_AT_ONCE = 8;

/** What the rule asks licensing (EntitlementsClient's methods). */
export interface PlanSource {
  plans(): Promise<PlanDefinition[]>;
  get(guildId: string): Promise<Entitlements>;
}

export interface AuditLogRetentionOptions {
  guildPage?: number;
  lookupsAtOnce?: number;
}

/**
 * The shortest audit log retention of any plan: a guild whose oldest entry is younger than that has
 * nothing to delete whatever its plan, so it is not looked up.
 */
export function shortestRetentionDays(plans: readonly PlanDefinition[]): number {
  const days = plans.map((plan) => plan.limits.audit_log_retention_days);
  if (days.length === 0 || !days.every((day) => Number.isInteger(day) && day > 0)) {
    throw new Error('the plan catalogue gives no audit log retention to go by');
  }
  return Math.min(...days);
}

/** The guilds of a page with an entry before `floor`: the only ones whose plan is worth asking. */
export function guildsPastFloor(page: readonly GuildOldestEntry[], floor: Date): string[] {
  return page.filter((guild) => guild.oldest.getTime() < floor.getTime()).map((guild) => guild.guild_id);
}

/**
 * docs/behaviour.md §8: a guild's audit log entries (`notification.audit_log`) are kept for its
 * plan's `audit_log_retention_days`, counted back from the sweep's `now`.
 *
 * At millions of entries over a hundred thousand guilds, the table is never scanned: the guilds are
 * walked in pages of guild ids through the index (a loose index scan with each guild's oldest entry),
 * and only a guild whose oldest entry is older than the shortest retention of any plan is looked up
 * in licensing. The shortest retention comes from licensing's plan catalogue rather than a constant
 * (FREE's 30 days today), so a plan given fewer days later is still swept. Each such guild's entries
 * older than its plan in force allows are then deleted in batches through `drain`.
 *
 * A guild whose plan cannot be read is skipped this run with a warning: its entries stay until a
 * sweep that can read it, never deleted on a guess. When the catalogue cannot be read, nothing is.
 *
 * Measured on 2,000,000 entries over 100,000 guilds (local Postgres, licensing answered in process):
 * the walk over every guild takes about 2 s; a first sweep deleting 1.2 million entries about
 * 6.5 minutes (a DELETE per due guild, about 4 ms each); the next one, with little due, 18 s.
 * Once the sweep is stopping (shutdown), no further guild is looked up: the rest is left for the
 * next sweep.
 */
export class AuditLogRetention implements RetentionRule {
  readonly table = 'notification.audit_log';
  private readonly logger = new Logger(AuditLogRetention.name);
  private readonly guildPage: number;
  private readonly lookupsAtOnce: number;

  constructor(
    private readonly repository: Pick<AuditLogRetentionRepository, 'guildsAfter' | 'deleteOlderThan'>,
    private readonly licensing: PlanSource,
    options: AuditLogRetentionOptions = {},
  ) {
    this.guildPage = options.guildPage ?? AUDIT_GUILD_PAGE;
    this.lookupsAtOnce = options.lookupsAtOnce ?? AUDIT_LOOKUPS_AT_ONCE;
  }

  async apply(
    now: Date,
    drain: (batch: DeleteBatch) => Promise<number>,
    stopping: () => boolean,
  ): Promise<number> {
    const floor = daysBefore(now, shortestRetentionDays(await this.licensing.plans()));
    let deleted = 0;
    let after = '';
    for (;;) {
      const page = await this.repository.guildsAfter(after, this.guildPage);
      const oldest = new Map(page.map((guild) => [guild.guild_id, guild.oldest]));
      const due = guildsPastFloor(page, floor);
      for (let start = 0; start < due.length; start += this.lookupsAtOnce) {
        if (stopping()) return deleted;
        const chunk = due.slice(start, start + this.lookupsAtOnce);
        const retentions = await Promise.all(chunk.map((guildId) => this.retentionDays(guildId)));
        for (const [index, guildId] of chunk.entries()) {
          const days = retentions[index];
          if (days === undefined) continue;
          const cutoff = daysBefore(now, days);
          if (oldest.get(guildId)!.getTime() >= cutoff.getTime()) continue;
          deleted += await drain((limit) => this.repository.deleteOlderThan(guildId, cutoff, limit));
        }
      }
      if (page.length < this.guildPage) return deleted;
      after = page[page.length - 1].guild_id;
    }
  }

  /** The guild's plan's audit log retention, or undefined (logged) when licensing cannot say. */
  private async retentionDays(guildId: string): Promise<number | undefined> {
    try {
      const days = (await this.licensing.get(guildId)).limits.audit_log_retention_days;
      if (Number.isInteger(days) && days > 0) return days;
      this.logger.warn(
        { guild_id: guildId, days },
        'audit log retention skipped for guild: no retention on its plan',
      );
    } catch (error) {
      this.logger.warn({ guild_id: guildId, err: String(error) }, 'audit log retention skipped for guild');
    }
    return undefined;
  }
}
