import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { ScheduledPass } from '@lib/runtime';
import { SchedulerRegistry } from '@nestjs/schedule';
import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import { decideAfterFailure } from './dm-retry';
import { type NotificationRow, NotificationsRepository } from './notifications.repository';

export const dmOutcomes = new Counter({
  name: 'notifier_dm_total',
  help: 'DM send attempts by template and outcome (sent, retry, undeliverable, failed)',
  labelNames: ['template', 'outcome'],
});

export interface DmSenderOptions {
  pollIntervalMs: number;
  retryBaseMs: number;
  maxAttempts: number;
}
export const DM_SENDER_OPTIONS = Symbol('DM_SENDER_OPTIONS');

const BATCH = 20;
const SENDERS = 5;

/**
 * Works through the DMs the consumer recorded, on every replica: each claims due rows under a lease
 * (`FOR UPDATE SKIP LOCKED`), so a DM is in one sender's hands at a time. Each DM carries a nonce
 * derived from its id with `enforce_nonce`, so when an answer is lost and the DM is sent again, the
 * platform returns the first message instead of posting a second one.
 */
@Injectable()
export class DmSender implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DmSender.name);
  private readonly task: ScheduledPass;

  constructor(
    private readonly notifications: NotificationsRepository,
    private readonly platform: ChatPlatformClient,
    @Inject(DM_SENDER_OPTIONS) private readonly options: DmSenderOptions,
    scheduler: SchedulerRegistry,
  ) {
    this.task = new ScheduledPass(scheduler, DmSender.name, async () => {
      await this.sendDue();
    });
  }

  onApplicationBootstrap(): void {
    this.task.every(this.options.pollIntervalMs, { now: true });
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One pass: sends every due DM, a batch at a time. Exposed for tests and standalone mode. */
  async sendDue(): Promise<number> {
    let sent = 0;
    while (!this.task.isStopped) {
      const batch = await this.notifications.claimDue(BATCH);
      // A few at a time: one slow or unreachable recipient must not hold up everyone else's DMs;
      // the REST client still queues them by the platform's rate-limit buckets.
      const queue = [...batch];
      const worker = async () => {
        for (let row = queue.shift(); row; row = queue.shift()) {
          const delivered = await this.send(row);
          if (delivered) sent++;
        }
      };
      await Promise.all(Array.from({ length: SENDERS }, worker));
      if (batch.length < BATCH) break;
    }
    return sent;
  }

  private async send(row: NotificationRow): Promise<boolean> {
    try {
      const message = await this.platform.sendDirectMessage(row.recipient_platform_user_id, {
        content: row.content,
        nonce: nonceFor(row.id),
      });
      await this.notifications.markSent(row.id, message.id);
      dmOutcomes.inc({ template: row.template, outcome: 'sent' });
      return true;
    } catch (error) {
      const decision = decideAfterFailure(error, row.attempts, {
        baseMs: this.options.retryBaseMs,
        maxAttempts: this.options.maxAttempts,
      });
      const context = { notification_id: row.id, template: row.template, attempts: row.attempts };
      if (decision.kind === 'retry') {
        await this.notifications.retryLater(row.id, decision.delayMs, decision.error);
        dmOutcomes.inc({ template: row.template, outcome: 'retry' });
        this.logger.warn({ ...context, retry_in_ms: decision.delayMs, err: decision.error }, 'DM not sent');
      } else {
        await this.notifications.markGivenUp(row.id, decision.status, decision.error);
        dmOutcomes.inc({ template: row.template, outcome: decision.status });
        this.logger.warn({ ...context, status: decision.status, err: decision.error }, 'DM given up');
      }
      return false;
    }
  }
}

/** The platform takes a nonce of at most 25 characters; the same DM always gets the same one. */
export function nonceFor(notificationId: string): string {
  return createHash('sha256').update(notificationId).digest('base64url').slice(0, 25);
}
