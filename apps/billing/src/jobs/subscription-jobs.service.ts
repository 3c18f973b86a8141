import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ScheduledPass } from '@lib/runtime';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { PlanDefinition } from '@lib/contracts';
import { EntitlementsClient } from '@lib/entitlements';
import { Counter } from 'prom-client';
import { DataSource, type EntityManager } from 'typeorm';
import { BillingSettings } from '../billing-settings';
import { type PaymentAttemptRow, PaymentAttemptsRepository } from '../payments/payment-attempts.repository';
import { PaymentsService } from '../payments/payments.service';
import type { SubscriptionRow } from '../subscriptions/subscription';
import { SubscriptionEvents } from '../subscriptions/subscription-events';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';

const jobRuns = new Counter({
  name: 'billing_job_items_total',
  help: 'Subscriptions handled by the scheduled jobs, by job',
  labelNames: ['job'],
});

/** At most this many items per job and tick, so one tick never runs for long. */
const BATCH = 100;

export interface JobReport {
  downgraded: number;
  ended: number;
  renewed: number;
  reconciled: number;
  /** Attempts the operator was told stay unsettled. */
  unsettled: number;
  licensed: number;
}

/**
 * docs/behaviour.md §4.10 and the appendix: pending downgrades and scheduled cancels at period end, renewals when
 * due (with the past_due retries of docs/decisions/past-due.md), and settling charges whose outcome is unknown by
 * looking them up at the provider.
 *
 * Every replica runs the loop; each item is claimed with `FOR UPDATE SKIP LOCKED` and changed in
 * the claiming transaction, so every subscription is handled once however many replicas run. A
 * renewal's claim is its pending payment attempt (at most one per subscription, which the database
 * enforces): while it exists, no other replica starts a charge for the subscription, and a re-send
 * carries the same order id and Idempotency-Key.
 */
@Injectable()
export class SubscriptionJobsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SubscriptionJobsService.name);
  private readonly task: ScheduledPass;

  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: BillingSettings,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly payments: PaymentsService,
    private readonly events: SubscriptionEvents,
    private readonly entitlements: EntitlementsClient,
    scheduler: SchedulerRegistry,
  ) {
    this.task = new ScheduledPass(scheduler, SubscriptionJobsService.name, async () => {
      const report = await this.runOnce();
      if (Object.values(report).some((count) => count > 0)) this.logger.log(report, 'subscription jobs ran');
    });
  }

  onApplicationBootstrap(): void {
    if (this.settings.jobsEnabled) this.task.every(this.settings.jobsIntervalMs);
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One pass of every job; what each did. */
  async runOnce(now = new Date()): Promise<JobReport> {
    return {
      downgraded: await this.applyDueDowngrades(now),
      ended: await this.finaliseCancels(now),
      renewed: await this.renewDue(now),
      reconciled: await this.reconcilePending(now),
      unsettled: await this.alertUnsettled(now),
      licensed: await this.attachLicenses(),
    };
  }

  /**
   * Subscriptions from before billing asked for the licence id get it here, so their next events
   * name the licence too. Licensing answers the same id to every replica; none is overwritten.
   */
  private async attachLicenses(): Promise<number> {
    const missing = await this.subscriptions.listWithoutLicense(BATCH);
    for (const { id, guild_id } of missing) {
      await this.subscriptions.attachLicense(id, await this.entitlements.reserveLicense(guild_id));
      jobRuns.inc({ job: 'license' });
    }
    return missing.length;
  }

  /** The lower plan takes over at period end (a scheduled cancel takes priority and ends it instead). */
  private applyDueDowngrades(now: Date): Promise<number> {
    return this.each('downgrade', async (manager) => {
      const subscription = await this.subscriptions.claimDueDowngrade(manager, now);
      if (!subscription) return false;
      await this.downgrade(manager, subscription);
      return true;
    });
  }

  private finaliseCancels(now: Date): Promise<number> {
    return this.each('cancel', async (manager) => {
      const subscription = await this.subscriptions.claimDueCancel(manager, now);
      if (!subscription) return false;
      const ended = await this.subscriptions.end(manager, subscription.id, 'period_end', new Date());
      await this.events.ended(manager, ended, 'period_end');
      return true;
    });
  }

  private async renewDue(now: Date): Promise<number> {
    if (!(await this.subscriptions.anyRenewalDue(now))) return 0;
    // Prices come from licensing's catalogue; without it nothing is charged and the next tick retries.
    const plans = await this.entitlements.plans();
    let renewed = 0;
    for (let i = 0; i < BATCH; i++) {
      const claim = await this.dataSource.transaction((manager) => this.claimRenewal(manager, now, plans));
      if (!claim) break;
      if (claim === 'taken') continue;
      renewed++;
      jobRuns.inc({ job: 'renewal' });
      await this.payments.charge(claim.attempt, claim.subscription);
    }
    return renewed;
  }

  private async claimRenewal(
    manager: EntityManager,
    now: Date,
    plans: PlanDefinition[],
  ): Promise<{ attempt: PaymentAttemptRow; subscription: SubscriptionRow } | 'taken' | null> {
    // Renewal skips canceled subscriptions and scheduled cancels (appendix rule 5).
    let subscription = await this.subscriptions.claimDueRenewal(manager, now);
    if (!subscription) return null;
    // The claim's "no pending attempt" was read before its lock was granted: another replica's
    // renewal, or an upgrade's charge, may have committed in between. Read again now that the lock
    // is held (a new statement sees every attempt committed before it); the database refuses a
    // second pending attempt anyway, but this way the race costs nothing.
    if (await this.attempts.pendingOf(manager, subscription.id)) return 'taken';
    const cycle = subscription.cycle_count + 1;
    const previous = await this.attempts.latestOfCycle(manager, subscription.id, cycle);
    if (subscription.pending_downgrade_to && subscription.current_period_end! <= now) {
      subscription = await this.downgrade(manager, subscription);
    }
    if (previous?.status === 'succeeded') {
      throw new Error(
        `cycle ${cycle} of subscription ${subscription.id} is paid but not recorded as renewed`,
      );
    }
    const plan = plans.find((candidate) => candidate.code === subscription.plan_code);
    if (!plan) throw new Error(`no plan ${subscription.plan_code} in the catalogue`);
    const attempt = await this.attempts.insertPending(manager, {
      subscriptionId: subscription.id,
      cycle,
      retryNumber: previous ? previous.retry_number + 1 : 0,
      planCode: subscription.plan_code,
      amountKrw: plan.price_krw,
      orderName: this.settings.orderName(plan.name, subscription.guild_name),
    });
    return { attempt, subscription };
  }

  /**
   * Pending charges (no answer, a temporary or unknown refusal, no webhook yet) are looked up at
   * the provider on a back-off and settled by what it says (PaymentsService.check); each claim
   * schedules the next look-up, so every replica may run this and each attempt is checked once.
   */
  private async reconcilePending(now: Date): Promise<number> {
    let reconciled = 0;
    for (let i = 0; i < BATCH; i++) {
      const claim = await this.dataSource.transaction(async (manager) => {
        const attempt = await this.attempts.claimDueCheck(
          manager,
          now,
          this.settings.reconcileAfterMs,
          this.settings.checkMaxIntervalMs,
        );
        if (!attempt) return null;
        const subscription = await this.subscriptions.get(attempt.subscription_id, manager);
        return subscription ? { attempt, subscription } : null;
      });
      if (!claim) break;
      reconciled++;
      jobRuns.inc({ job: 'reconcile' });
      await this.payments.check(claim.attempt, claim.subscription, now);
    }
    return reconciled;
  }

  /**
   * The operator alert for a charge that stays unsettled (docs/runbook.md): once per attempt,
   * PAYMENT_UNSETTLED_ALERT_AFTER_MS after it was created. The attempt stays pending and keeps
   * being looked up; nothing is canceled for it.
   */
  private async alertUnsettled(now: Date): Promise<number> {
    const before = new Date(now.getTime() - this.settings.unsettledAlertAfterMs);
    const unsettled = await this.dataSource.transaction((manager) =>
      this.attempts.claimUnsettledToAlert(manager, before, BATCH),
    );
    for (const attempt of unsettled) {
      jobRuns.inc({ job: 'unsettled_alert' });
      this.logger.error(
        {
          alert: 'payment_unsettled',
          subscription_id: attempt.subscription_id,
          order_id: attempt.order_id,
          created_at: attempt.created_at.toISOString(),
          checks: attempt.check_count,
        },
        'a charge is still unsettled; the provider has not confirmed or refused it',
      );
    }
    return unsettled.length;
  }

  private async downgrade(manager: EntityManager, subscription: SubscriptionRow): Promise<SubscriptionRow> {
    const downgraded = await this.subscriptions.update(
      manager,
      subscription.id,
      { plan_code: subscription.pending_downgrade_to!, pending_downgrade_to: null },
      new Date(),
    );
    await this.events.downgraded(manager, downgraded, subscription.plan_code);
    return downgraded;
  }

  private async each(job: string, claimOne: (manager: EntityManager) => Promise<boolean>): Promise<number> {
    let count = 0;
    while (count < BATCH && (await this.dataSource.transaction(claimOne))) {
      count++;
      jobRuns.inc({ job });
    }
    return count;
  }
}
