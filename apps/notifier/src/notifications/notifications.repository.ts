import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { PlannedDm } from './templates';

export type NotificationStatus = 'pending' | 'sent' | 'suppressed' | 'undeliverable' | 'failed';

/** A `notification.notifications` row: one DM an event calls for. */
export interface NotificationRow {
  id: string;
  event_id: string;
  event_type: string;
  template: string;
  guild_id: string;
  recipient_platform_user_id: string;
  recipient_user_id: string | null;
  content: string;
  status: NotificationStatus;
  attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_error: string | null;
  platform_message_id: string | null;
  sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * How long a sender holds a claimed DM before another replica may take it over. Longer than one
 * send can take (the REST client's own retries included), so a live sender is never doubled.
 */
const LEASE_SECONDS = 120;

@Injectable()
export class NotificationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** In the consumer's transaction; a redelivered event finds its row there already. */
  async add(
    manager: EntityManager,
    event: { id: string; type: string; guild_id: string },
    dm: PlannedDm,
    status: 'pending' | 'suppressed',
  ): Promise<void> {
    await manager.query(
      `INSERT INTO notification.notifications
         (id, event_id, event_type, template, guild_id, recipient_platform_user_id, recipient_user_id,
          content, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (event_id, template, recipient_platform_user_id) DO NOTHING`,
      [
        uuidv7(),
        event.id,
        event.type,
        dm.template,
        event.guild_id,
        dm.recipientPlatformUserId,
        dm.recipientUserId,
        dm.content,
        status,
      ],
    );
  }

  /**
   * Takes up to `limit` due DMs for this sender: pending, due, and not leased by a live sender.
   * The attempt is counted here, so a sender that dies mid-send has used it up.
   */
  async claimDue(limit: number): Promise<NotificationRow[]> {
    const [rows] = await this.dataSource.query<[NotificationRow[], number]>(
      `UPDATE notification.notifications n
          SET attempts = n.attempts + 1, lease_until = now() + make_interval(secs => $2), updated_at = now()
        WHERE n.id IN (
              SELECT id FROM notification.notifications
               WHERE status = 'pending' AND next_attempt_at <= now()
                 AND (lease_until IS NULL OR lease_until < now())
               ORDER BY next_attempt_at
               LIMIT $1
               FOR UPDATE SKIP LOCKED)
        RETURNING n.*`,
      [limit, LEASE_SECONDS],
    );
    return rows;
  }

  async markSent(id: string, platformMessageId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notification.notifications
          SET status = 'sent', platform_message_id = $2, sent_at = now(), lease_until = NULL,
              last_error = NULL, updated_at = now()
        WHERE id = $1`,
      [id, platformMessageId],
    );
  }

  /** Given up: `undeliverable` (the platform will never take it) or `failed` (retries ran out). */
  async markGivenUp(id: string, status: 'undeliverable' | 'failed', error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notification.notifications
          SET status = $2, last_error = $3, lease_until = NULL, updated_at = now()
        WHERE id = $1`,
      [id, status, error.slice(0, 2_000)],
    );
  }

  async retryLater(id: string, delayMs: number, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notification.notifications
          SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3, lease_until = NULL,
              updated_at = now()
        WHERE id = $1`,
      [id, delayMs / 1_000, error.slice(0, 2_000)],
    );
  }

  /** Deletes up to `limit` DMs final (not pending) since before `cutoff`, oldest first, skipping rows held elsewhere. */
  async deleteFinalBefore(cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM notification.notifications WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM notification.notifications
          WHERE status <> 'pending' AND updated_at < $1
          ORDER BY updated_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED))`,
      [cutoff, limit],
    );
    return deleted;
  }
}
