import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface NotificationPreferences {
  payment_notifications: boolean;
  /** Null while the user has never changed anything (the defaults apply). */
  updated_at: string | null;
}

/** ARCHITECTURE.md: `payment_notifications` defaults to on. */
const DEFAULTS = { payment_notifications: true } as const;

@Injectable()
export class PreferencesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async get(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<NotificationPreferences> {
    const [row] = await manager.query<{ payment_notifications: boolean; updated_at: Date }[]>(
      `SELECT payment_notifications, updated_at FROM notification.notification_preferences WHERE user_id = $1`,
      [userId],
    );
    return row
      ? { payment_notifications: row.payment_notifications, updated_at: row.updated_at.toISOString() }
      : { ...DEFAULTS, updated_at: null };
  }

  async put(
    userId: string,
    preferences: { payment_notifications: boolean },
  ): Promise<NotificationPreferences> {
    const [row] = await this.dataSource.query<{ payment_notifications: boolean; updated_at: Date }[]>(
      `INSERT INTO notification.notification_preferences (user_id, payment_notifications)
       VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE
          SET payment_notifications = EXCLUDED.payment_notifications, updated_at = now()
       RETURNING payment_notifications, updated_at`,
      [userId, preferences.payment_notifications],
    );
    return { payment_notifications: row.payment_notifications, updated_at: row.updated_at.toISOString() };
  }
}
